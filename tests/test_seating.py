"""Fair seating at 3 and 4 players: the balanced default seats every bot in every seat and after
every other bot equally often, wherever games are scheduled, so a rating does not depend on the
order a config lists the bots in (docs/league.md, "Seating")."""
from __future__ import annotations

import json
from collections import Counter
from itertools import permutations

import polars as pl
import pytest
from typer.testing import CliRunner

from analysis import stats
from analysis.ratings import rate_by_players
from analysis.synthetic import synthetic_multi_league, write_league
from azul_cli.main import app
from test_league_support import league
from tournament.config import ConfigError, parse_config
from tournament.events import event_schedule
from tournament.run_folder import check_resumable
from tournament.errors import LeagueError
from tournament.scheduler import arrangements, count_games, deal_block, schedule, seat_blocks, seat_cycle
from kinds.study import StudyConfig, study_games

runner = CliRunner()


def balance(lineups) -> tuple[Counter, Counter]:
    """How often each member sits in each seat, and how often each member follows each other
    (the member of seat s - 1, cyclically, moves just before the member of seat s)."""
    seats, after = Counter(), Counter()
    for lineup in lineups:
        for s, m in enumerate(lineup):
            seats[m, s] += 1
            after[lineup[s - 1], m] += 1
    return seats, after


def assert_balanced(lineups, members):
    """Every member in every seat equally often, and after every other member equally often."""
    seats, after = balance(lineups)
    k = len(lineups[0])
    assert set(seats) == {(m, s) for m in members for s in range(k)} and len(set(seats.values())) == 1
    assert set(after) == set(permutations(members, 2)) and len(set(after.values())) == 1, after


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_block_of_the_balanced_seating_balances_seats_and_neighbours(players):
    block = [a for d in range(deal_block(players, "balanced")) for a in arrangements(players, "balanced", d)]
    assert_balanced(block, range(players))
    assert block == seat_cycle(players, "balanced")
    # each deal seats every member in every seat; the games a deal: 2, 6, 12 (not 24 at 4)
    for d in range(deal_block(players, "balanced")):
        lineups = arrangements(players, "balanced", d)
        assert len(lineups) == {2: 2, 3: 6, 4: 12}[players] == len(set(lineups))
        assert len(set(balance(lineups)[0].values())) == 1
    assert deal_block(players, "balanced") == (2 if players == 4 else 1)


def test_the_balanced_seating_is_rotate_at_2_players_and_rotate_is_unbalanced_at_3_and_4():
    assert arrangements(2, "balanced") == arrangements(2, "rotate") == arrangements(2, "permute")
    for players in (3, 4):
        after = balance(arrangements(players, "rotate"))[1]
        assert len(after) == players  # each member always after the same one: the config's order
    # no 12 seatings of one deal balance neighbours at 4 players: each deal's half is unbalanced
    assert len(set(balance(arrangements(4, "balanced", 0))[1].values())) > 1


def test_every_table_of_a_6_bot_round_robin_at_4_players_is_balanced_over_each_pair_of_deals():
    games = list(schedule(6, 4, 4, "balanced", seed=3))
    assert len(games) == count_games(6, 4, 4, "balanced") == 15 * 4 * 12
    by_table = {}
    for g in games:
        by_table.setdefault((g.table, g.deal // 2), []).append(g.seats)
    assert len(by_table) == 15 * 2
    for lineups in by_table.values():
        assert_balanced(lineups, sorted(set(lineups[0])))


@pytest.mark.parametrize("players,fields", [
    (3, {"format": "gauntlet", "challengers": ["b0"]}), (4, {"format": "gauntlet", "challengers": ["b1"]}),
    (3, {"format": "swiss", "rounds": 2}), (4, {"format": "swiss", "rounds": 2})])
def test_every_table_of_an_event_is_balanced(players, fields):
    import numpy as np

    from tournament.events.simulate import simulate

    bots = [{"name": f"b{i}", "type": "random", "seed": i} for i in range(2 * players + 1)]
    config = parse_config({"name": "e", "players": players, "deals": 2, "bots": bots, **fields})
    names = [b.name for b in config.bots]
    stages, _ = simulate(event_schedule(config), names, list(np.linspace(200, 0, len(names))),
                         np.random.default_rng(1))
    by_table = {}
    for g in (g for stage in stages for g in stage):
        by_table.setdefault(g.table, []).append(g.seats)
    assert len(by_table) > 1
    for lineups in by_table.values():
        assert_balanced(lineups, sorted(set(lineups[0])))


def test_the_tune_field_and_a_study_field_turn_through_the_balanced_seating(tmp_path):
    from kinds.tune import TuneSchedule, league_of
    from kinds.tune_config import parse_tune

    for players in (3, 4):
        cycle = seat_cycle(players, "balanced")
        tune = parse_tune({"name": "t", "bot": "heuristic", "players": players, "pairs": len(cycle),
                           "batch": len(cycle), "field": ["greedy", "random"][:players - 2],
                           "params": {"marker": {}}, "out": str(tmp_path)})
        games = TuneSchedule(tune, league_of(tune, mlflow=False)).stage(0).games
        assert len(games) == 2 * len(cycle)
        assert_balanced([g.seats for g in games], range(players))
    study = StudyConfig(name="s", bot="heuristic", interventions=("marker=take",), players=4, deals=6,
                        field=("greedy", "random", "mcts:iterations=5"), seats=(0,))
    controls = [g.seats for g in study_games(study) if g.intervention == "control"]
    assert len(controls) == 6 and controls[0][0] == 0 and all(c[0] == 0 for c in controls)
    seats, after = balance(controls)
    field = sorted(set(controls[0][1:]))
    assert len({seats[m, s] for m in field for s in (1, 2, 3)}) == 1  # each field bot in each other seat
    assert set(after) == set(permutations([0, *field], 2)) and set(after.values()) == {2}  # over 6 deals


def ratings(players: int, order: list[str], seats: str, after: dict, seed: int) -> dict[str, float]:
    """The Plackett-Luce ratings of a synthetic league of the bots in ``order`` with the neighbour
    effects ``after``, seated as ``seats`` says."""
    truth = dict(zip("abcd", (0.0, 0.0, 0.0, 0.0)))
    league_ = synthetic_multi_league([(b, truth[b]) for b in order], 240, players, seat_edge=30.0, seed=seed,
                                     tie_rate=0.0, seatings=seat_blocks(players, seats), after=after)
    fit = rate_by_players(league_["results"], league_["games"], bootstrap=0)[players]
    return dict(zip(fit.table["bot"], fit.table["rating"]))


@pytest.mark.parametrize("players", [3, 4])
def test_ratings_do_not_depend_on_the_config_order_under_the_default_and_do_under_rotate(players):
    bots = list("abcd")[:players]
    after = {("b", "a"): 300.0}  # a plays much better after b (b leaves it good factories)
    fwd, rev = bots, bots[::-1]
    fair = [ratings(players, order, "balanced", after, seed) for order, seed in ((fwd, 1), (rev, 2))]
    rotated = [ratings(players, order, "rotate", after, seed) for order, seed in ((fwd, 1), (rev, 2))]
    # rotate: in one order a always follows b, in the other never: a's rating moves by far more than noise
    assert abs(rotated[0]["a"] - rotated[1]["a"]) > 150, rotated
    for bot in bots:  # balanced: the same rating (within noise) whichever order the bots are listed in
        assert abs(fair[0][bot] - fair[1][bot]) < 40, (bot, fair)


def test_the_neighbour_statistic_finds_a_known_effect():
    # 3 players, one game in each of the 6 seatings: a wins every game it plays just after b and
    # comes last in every other
    rows = []
    for i, lineup in enumerate(permutations("abc")):
        a = lineup.index("a")
        a_after_b = lineup[a - 1] == "b"
        order = ["a"] + [x for x in lineup if x != "a"] if a_after_b else [x for x in lineup if x != "a"] + ["a"]
        for s, bot in enumerate(lineup):
            rank = order.index(bot) + 1
            rows.append((f"g{i}", s, bot, 40 - 10 * rank, rank))
    frame = pl.DataFrame(rows, schema=["game_id", "seat", "bot", "score", "rank"], orient="row").with_columns(
        pl.lit("r").alias("run_id"), (pl.col("rank") == 1).alias("is_winner"))
    table = stats.neighbours(frame)
    row = {(r["bot"], r["before"]): r for r in table.iter_rows(named=True)}
    assert row["a", "b"]["games"] == 3 and row["a", "b"]["win_rate"] == 1.0
    assert row["a", "c"]["games"] == 3 and row["a", "c"]["win_rate"] == 0.0
    assert row["a", None]["games"] == 6 and row["a", None]["win_rate"] == 0.5
    # a's share after b: 30 of 30 + 20 + 10 points
    assert row["a", "b"]["score_share"] == pytest.approx(0.5)
    assert row["a", "c"]["score_share"] == pytest.approx(10 / 60)
    assert all(r["low"] <= r["win_rate"] <= r["high"] for r in table.iter_rows(named=True))
    with pytest.raises(ValueError, match="no 3- or 4-player games"):
        stats.neighbours(frame.filter(pl.col("seat") < 2).with_columns(pl.col("rank").rank("min").over("game_id")
                                                                        .cast(pl.Int64)))


def test_neighbour_intervals_widen_with_fewer_deals():
    league_ = synthetic_multi_league([("a", 0.0), ("b", 0.0), ("c", 0.0)], 200, 3, seed=4,
                                     seatings=seat_blocks(3, "balanced"), after={("b", "a"): 200.0})
    table = stats.neighbours(league_["results"], league_["games"])
    r = table.filter((pl.col("bot") == "a") & (pl.col("before") == "b")).row(0, named=True)
    other = table.filter((pl.col("bot") == "a") & (pl.col("before") == "c")).row(0, named=True)
    assert r["low"] > other["high"]  # a clearly wins more after b
    assert r["share_low"] > other["share_high"]
    assert r["games"] == other["games"] == 200 * 3


def test_the_default_is_balanced_and_4_players_need_an_even_number_of_deals(tmp_path):
    config = parse_config(league(tmp_path, ["random", "greedy", "heuristic", "mcts:iterations=5"], players=4, deals=2))
    assert config.seats == "balanced" and config.total_games == 2 * 12 and config.seating_note() is None
    with pytest.raises(ConfigError, match="deals: must be even at 4 players with seats: balanced.*not 3"):
        parse_config(league(tmp_path, ["random", "greedy", "heuristic", "mcts:iterations=5"], players=4, deals=3))
    assert parse_config(league(tmp_path, ["random", "greedy", "heuristic"], players=3, deals=3)).total_games == 18
    rotate = parse_config(league(tmp_path, ["random", "greedy", "heuristic"], players=3, seats="rotate"))
    assert "each bot always follows the same bot" in rotate.seating_note()
    assert parse_config(league(tmp_path, ["random", "greedy"], seats="rotate")).seating_note() is None


def test_a_2_player_run_started_with_rotate_resumes_under_the_default_and_a_3_player_one_does_not(tmp_path):
    where = tmp_path / "config.yaml"
    two = league(tmp_path, ["random", "greedy"])
    check_resumable(parse_config(two), {**two, "seats": "rotate"}, where)  # the same games
    three = league(tmp_path, ["random", "greedy", "heuristic"], players=3)
    with pytest.raises(LeagueError, match="differs from the one it was started with in seats"):
        check_resumable(parse_config(three), {**three, "seats": "rotate"}, where)


def test_league_run_warns_about_rotate_at_3_players_and_standings_show_neighbours(tmp_path):
    path = tmp_path / "l.yaml"
    path.write_text(json.dumps(league(tmp_path, ["random", "greedy", "heuristic"], name="r3", players=3,
                                      seats="rotate")))
    result = runner.invoke(app, ["league", "run", str(path), "--quiet", "--no-report"])
    assert result.exit_code == 0, result.output
    warning = [line for line in result.output.splitlines() if line.startswith("warning: seats: rotate")]
    assert len(warning) == 1 and "always follows the same bot" in warning[0]
    result = runner.invoke(app, ["standings", str(tmp_path / "r3"), "--what", "neighbours", "-f", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["rows"]
    # rotate: each bot always after the same one, so one predecessor per bot (plus its pooled row)
    assert len(rows) == 6 and {r["before"] for r in rows if r["bot"] == "random"} == {None, "heuristic"}
    result = runner.invoke(app, ["standings", str(tmp_path / "r3"), "--what", "neighbours"])
    assert result.exit_code == 0 and "after" in result.output and "heuristic" in result.output


def test_the_report_has_a_neighbours_section_at_3_and_4_players_only(tmp_path):
    from analysis.report import build_report
    from analysis.synthetic import synthetic_league

    three = synthetic_multi_league([("a", 0.0), ("b", 0.0), ("c", 0.0)], 60, 3, seed=5,
                                   seatings=seat_blocks(3, "balanced"), after={("b", "a"): 300.0})
    build_report(write_league(three, tmp_path / "three"), tmp_path / "r3", bootstrap=0)
    summary = (tmp_path / "r3" / "summary.md").read_text()
    assert "## Neighbours (3 and 4 players)" in summary
    line = next(x for x in summary.splitlines() if x.startswith("- a (3 players) wins"))
    assert "after b" in line.split(" and ")[0] and line.endswith(")")  # a does best after b
    assert "Neighbours (3 and 4 players)" in (tmp_path / "r3" / "report.html").read_text()
    two = synthetic_league([("a", 0.0), ("b", 0.0)], 20, seed=5)
    build_report(write_league(two, tmp_path / "two"), tmp_path / "r2", bootstrap=0)
    assert "Neighbours" not in (tmp_path / "r2" / "report.html").read_text()
