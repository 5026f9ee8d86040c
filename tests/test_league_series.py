"""Leagues with ``match: series``: two games per scheduled game, their records, replay and resume."""
from __future__ import annotations

from collections import Counter

import pytest
from test_league_support import league

from analysis.records import read_table as read_frame
from records.parts import PartWriter
from records.read import done_game_ids, read_table
from tournament.config import ConfigError, parse_config
from tournament.replay import replay
from tournament.backends import play_batch
from records.names import CONFIG_FILE
from tournament.runner import run_dir_of, run_league
from tournament.scheduler import count_games, derive_seed, schedule, series_deal_seed
from tournament.series import recorded_series, series_ranks


def series_league(tmp_path, name="s", **fields):
    fields.setdefault("deals", 2)
    data = league(tmp_path, ["random", "greedy"], name=name, match="series", **fields)
    return parse_config(data)


# ---------------------------------------------------------------- config and schedule
def test_match_option(tmp_path):
    plain = parse_config(league(tmp_path, ["random", "greedy"]))
    assert plain.match == "game" and plain.to_dict()["match"] == "game"
    config = series_league(tmp_path)
    assert config.match == "series" and config.to_dict()["match"] == "series"
    assert config.total_games == 2 * plain.total_games == 8
    assert parse_config(config.to_dict()) == config
    with pytest.raises(ConfigError, match=r"match: must be one of game, series, not 'bo3'"):
        parse_config(league(tmp_path, ["random", "greedy"], match="bo3"))


def test_a_series_schedule_pairs_the_games():
    games = list(schedule(3, 2, 2, "rotate", seed=4))
    pairs = list(schedule(3, 2, 2, "rotate", seed=4, match="series"))
    assert len(pairs) == 2 * len(games) == count_games(3, 2, 2, "rotate", "series")
    for game, (one, two) in zip(games, zip(pairs[0::2], pairs[1::2])):
        assert (one.game_id, two.game_id) == (f"{game.game_id}-s1", f"{game.game_id}-s2")
        assert one.seats == two.seats == game.seats
        assert (one.table, one.deal, one.arrangement) == (two.table, two.deal, two.arrangement) == \
            (game.table, game.deal, game.arrangement)
        assert one.deal_seed == game.deal_seed
        assert two.deal_seed == series_deal_seed(game.deal_seed, 2) == derive_seed(game.deal_seed, "series", 2)
        assert (one.opener, two.opener, one.series_game, two.series_game) == (0, 1, 1, 2)
        assert game.opener == 0 and game.series_game is None
    with pytest.raises(ValueError, match="match must be one of game, series"):
        next(schedule(3, 2, 2, "rotate", seed=4, match="set"))


# ---------------------------------------------------------------- a whole league of series
@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("series")
    config = series_league(tmp, name="full")
    summary = run_league(config, progress=False)
    return config, summary


def test_both_games_of_each_series_are_recorded(finished):
    _, summary = finished
    assert summary.complete and summary.recorded == 8
    games = read_frame(summary.run_dir, "games")
    assert games.height == 8
    by_series = {}
    for row in games.iter_rows(named=True):
        assert row["game_id"] == f"{row['series_id']}-s{row['series_game']}"
        by_series.setdefault(row["series_id"], []).append(row)
    assert len(by_series) == 4
    for sid, rows in by_series.items():
        rows.sort(key=lambda r: r["series_game"])
        one, two = rows
        assert (one["series_game"], two["series_game"]) == (1, 2)
        assert (one["table"], one["deal"], one["arrangement"]) == (two["table"], two["deal"], two["arrangement"])
        assert two["deal_seed"] == series_deal_seed(one["deal_seed"], 2)
    results = read_frame(summary.run_dir, "results")
    seats = {(r["game_id"], r["seat"]): r["bot"] for r in results.iter_rows(named=True)}
    for sid in by_series:  # same seating in both games
        assert [seats[(f"{sid}-s1", s)] for s in (0, 1)] == [seats[(f"{sid}-s2", s)] for s in (0, 1)]


def test_game_two_is_opened_by_seat_one(finished):
    _, summary = finished
    rounds = read_table(summary.run_dir, "rounds").to_pylist()
    moves = read_table(summary.run_dir, "moves").to_pylist()
    openers = {(r["game_id"], r["seat"]): r["opener"] for r in rounds if r["round"] == 1}
    first_mover = {m["game_id"]: m["seat"] for m in moves if m["ply"] == 1}
    for gid, seat in first_mover.items():
        expected = 0 if gid.endswith("-s1") else 1
        assert seat == expected and openers[(gid, 0)] == openers[(gid, 1)] == expected


def test_replay_rebuilds_game_two(finished):
    _, summary = finished
    results = read_table(summary.run_dir, "results").to_pylist()
    for gid in ("t000-d00000-a00-s2", "t000-d00001-a01-s2", "t000-d00000-a01-s1"):
        state = replay(summary.run_dir, gid)
        assert state.is_over
        assert state.scores == [r["score"] for r in sorted(results, key=lambda r: r["seat"]) if r["game_id"] == gid]


def test_recorded_series_are_scored_by_the_series_rule(finished):
    _, summary = finished
    results = read_table(summary.run_dir, "results").to_pylist()
    series = recorded_series(summary.run_dir)
    assert sorted(series) == ["t000-d00000-a00", "t000-d00000-a01", "t000-d00001-a00", "t000-d00001-a01"]
    for sid, result in series.items():
        for seat in (0, 1):
            mine = [r for r in results if r["seat"] == seat and r["game_id"].startswith(sid + "-s")]
            assert len(mine) == 2
            assert result.totals[seat] == sum(r["score"] for r in mine)
            assert result.complete_rows[seat] == sum(r["complete_rows"] for r in mine)
        assert [g.opener for g in result.games] == [0, 1]
        assert (result.ranks, result.decided_by) == series_ranks(result.totals, result.complete_rows)


def test_a_league_of_games_has_no_series_columns_set(tmp_path):
    summary = run_league(parse_config(league(tmp_path, ["random", "greedy"], deals=1)), progress=False)
    games = read_table(summary.run_dir, "games").to_pylist()
    assert sorted(g["game_id"] for g in games) == ["t000-d00000-a00", "t000-d00000-a01"]
    assert all(g["series_id"] is None and g["series_game"] is None for g in games)


# ---------------------------------------------------------------- resume
def scores(run_dir):
    return {(r["game_id"], r["seat"]): r["score"] for r in read_table(run_dir, "results").to_pylist()}


def test_resume_after_an_interruption_keeps_each_game_once(tmp_path, finished):
    _, full = finished
    config = series_league(tmp_path, name="cut", batch_games=1, flush_seconds=0)

    def stop(written):
        raise KeyboardInterrupt

    first = run_league(config, progress=False, on_written=stop)
    assert first.interrupted and 0 < first.recorded < 8
    assert first.recorded % 2 == 0  # the two games of a series are played and written together
    rest = run_league(config, resume=True, progress=False)
    assert rest.complete and rest.done_before == first.recorded and rest.played == 8 - first.recorded
    ids = Counter(read_table(rest.run_dir, "games").column("game_id").to_pylist())
    assert set(ids.values()) == {1} and len(ids) == 8
    assert scores(rest.run_dir) == scores(full.run_dir)


def test_resume_finishes_a_half_recorded_series(tmp_path, finished):
    _, full = finished
    config = series_league(tmp_path, name="half")
    run_dir = run_dir_of(config)
    specs = list(schedule(2, 2, 2, "rotate", config.seed, "series"))
    PartWriter(run_dir).write({k: [t] for k, t in play_batch(config, specs[:1], config.name).items()})
    (run_dir / CONFIG_FILE).write_text(config.to_yaml())
    assert done_game_ids(run_dir) == {"t000-d00000-a00-s1"}  # game two of that series is missing
    summary = run_league(config, resume=True, progress=False)
    assert summary.done_before == 1 and summary.played == 7 and summary.complete
    ids = Counter(read_table(run_dir, "games").column("game_id").to_pylist())
    assert len(ids) == 8 and set(ids.values()) == {1}
    assert scores(run_dir) == scores(full.run_dir)  # game two alone is the same game


def test_resume_refuses_a_changed_match(tmp_path):
    from tournament.errors import LeagueError
    config = parse_config(league(tmp_path, ["random", "greedy"], name="m", deals=1))
    run_league(config, progress=False)
    changed = series_league(tmp_path, name="m", deals=1)
    with pytest.raises(LeagueError, match="differs from the one it was started with in match"):
        run_league(changed, resume=True, progress=False)
