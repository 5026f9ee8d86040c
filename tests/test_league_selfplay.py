"""Self-play: a league with ``self_play: true`` also seats each bot against copies of itself; the
analysis reports the seat advantage between those equal bots and leaves the ratings alone."""
from __future__ import annotations

from typing import ClassVar

import numpy as np
import polars as pl
import pytest

import tournament.game
from analysis import fit_elo, fit_plackett_luce, openskill_table, rate_by_players, read_records
from analysis.report import collect, render_html, render_summary
from analysis.stats import seat_advantage, standings
from analysis.synthetic import synthetic_league, synthetic_multi_league
from bots import Bot
from engine import GameState, Move
from test_league_support import league
from tournament import read_table, replay_games
from tournament.config import parse_config
from tournament.backends import play_batch
from tournament.runner import run_league
from tournament.scheduler import bot_game_seed, derive_seed, schedule


class SeedBot(Bot):
    """A random player that notes the seed of every game it starts (the league plays in this
    process, building each copy once and reseeding it for each game: ``Bot.reseed``)."""

    seen: ClassVar[list[int]] = []

    def reset(self) -> None:
        SeedBot.seen.append(self.seed)

    @property
    def name(self) -> str:
        return "seedbot"

    def act(self, state: GameState) -> Move:
        return self.rng.choice(state.legal_moves())


def self_play_league(tmp_path, **fields):
    bots = [{"name": "r", "type": "random", "seed": 11},
            {"name": "s", "type": "test_league_selfplay:SeedBot", "seed": 12}, "greedy"]
    return parse_config(league(tmp_path, bots, deals=3, self_play=True, flush_seconds=0, **fields))


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    SeedBot.seen.clear()
    config = self_play_league(tmp_path_factory.mktemp("selfplay"))
    summary = run_league(config, progress=False)
    return config, summary, list(SeedBot.seen)


def test_a_self_play_league_records_its_self_games(played):
    config, summary, _ = played
    # 3 bots, 3 deals: 3 pairs x 2 seatings, then 3 self tables x 1 game, a deal
    assert summary.complete and summary.recorded == summary.total == config.total_games == 27
    results = pl.from_arrow(read_table(summary.run_dir, "results"))
    games = pl.from_arrow(read_table(summary.run_dir, "games"))
    lineups = results.sort("game_id", "seat").group_by("game_id", maintain_order=True).agg("bot")
    own = lineups.filter(pl.col("bot").list.n_unique() == 1)
    assert own.height == 9
    assert sorted(own["bot"].list.first().to_list()) == sorted(["greedy", "r", "s"] * 3)
    assert set(games.filter(pl.col("table") >= 3)["game_id"]) == set(own["game_id"])
    assert set(games.filter(pl.col("table") >= 3)["arrangement"]) == {0}
    for gid, state in replay_games(summary.run_dir):  # every game replays to its result
        rows = results.filter(game_id=gid).sort("seat")
        assert state.scores == rows["score"].to_list()


def test_each_copy_is_built_with_its_own_seed(played):
    config, _, seen = played
    specs = list(schedule(3, 2, 3, "rotate", config.seed, self_play=True))
    mine = [g for g in specs if 1 in g.seats]
    self_games = [g for g in mine if g.seats == (1, 1)]
    assert len(self_games) == 3
    expected = []
    for g in mine:  # in schedule order: what the serial league played, seat by seat
        expected += [bot_game_seed(12, g.game_id, g.seats[:s].count(1)) for s in range(2)
                     if g.seats[s] == 1]
    assert seen == expected
    for g in self_games:
        first, second = bot_game_seed(12, g.game_id), bot_game_seed(12, g.game_id, 1)
        assert first != second and first == derive_seed(12, "game", g.game_id)
        assert first in seen and second in seen
    for g in mine:  # a game against another bot keeps the seed it always had
        if g.seats != (1, 1):
            assert derive_seed(12, "game", g.game_id) in seen


def moves_of(tables) -> list[tuple]:
    return list(zip(*(tables["moves"].column(c).to_pylist() for c in ("seat", "move"))))


def test_the_copies_do_not_mirror_one_seed(played, monkeypatch):
    config, summary, _ = played
    spec = next(g for g in schedule(3, 2, 3, "rotate", config.seed, self_play=True)
                if g.seats == (0, 0))  # random against random
    recorded = pl.from_arrow(read_table(summary.run_dir, "moves")).filter(game_id=spec.game_id)
    again = play_batch(config, [spec], config.name)  # alone in a batch, as on a worker
    assert moves_of(again) == list(zip(recorded["seat"], recorded["move"]))
    original = tournament.game.bot_game_seed
    monkeypatch.setattr(tournament.game, "bot_game_seed", lambda seed, gid, copy=0: original(seed, gid))
    same_seed = play_batch(config, [spec], config.name)
    assert moves_of(same_seed) != moves_of(again)


def test_seat_advantage_of_a_self_play_league(played):
    _, summary, _ = played
    records = read_records(summary.run_dir)
    table = seat_advantage(records["results"], records["games"])
    equal = table.filter(pl.col("between") == "equal")
    pooled = equal.filter(pl.col("bot").is_null())
    assert pooled["seat"].to_list() == [0, 1] and pooled["games"].to_list() == [9, 9]
    assert sorted(equal.filter(pl.col("bot").is_not_null())["bot"].unique()) == ["greedy", "r", "s"]
    assert set(equal.filter(pl.col("bot").is_not_null())["games"]) == {3}
    overall = table.filter((pl.col("between") == "all") & pl.col("bot").is_null())
    assert overall["games"].to_list() == [27, 27]
    # the fits and OpenSkill take the records as they are
    fits = rate_by_players(records["results"], records["games"], bootstrap=5)
    assert sorted(fits[2].table["bot"]) == ["greedy", "r", "s"]
    skill = openskill_table(records["results"], records["games"], num_players=2)
    assert set(skill["games"]) == {12}  # 2 opponents x 3 deals x 2 seatings: self games skipped
    report = collect(summary.run_dir, bootstrap=0)
    assert "seat 0 (2 players) wins" in render_summary(report)
    assert "of 9 games between equal bots" in render_summary(report)
    html = render_html(report)
    assert "of 9 games between equal bots" in html and "equal bots</text>" in html  # the legend


# ---------------------------------------------------------------- the fits, on synthetic leagues
def with_self_games(league: dict, deals: int, seat0_win: float | None, seed: int) -> dict:
    """A synthetic league plus ``deals`` games of each bot against itself, as self tables after
    the league's tables. 2 players: seat 0 wins with probability ``seat0_win``; more players
    (``seat0_win`` None): every finishing order alike."""
    rng = np.random.default_rng(seed)
    games, results = league["games"], league["results"]
    players = results.filter(game_id=results["game_id"][0]).height
    bots = sorted(results["bot"].unique().to_list())
    first = int(games["table"].max()) + 1
    g_rows, r_rows = [], []
    for i, bot in enumerate(bots):
        for d in range(deals):
            gid = f"t{first + i:03d}-d{d:05d}-a00"
            g_rows.append((gid, first + i, d, 0))
            if seat0_win is None:
                ranks = (rng.permutation(players) + 1).tolist()
            else:
                ranks = [1, 2] if rng.random() < seat0_win else [2, 1]
            r_rows += [(gid, s, bot, 70 - 10 * ranks[s], ranks[s]) for s in range(players)]
    g_new = pl.DataFrame(g_rows, schema=["game_id", "table", "deal", "arrangement"], orient="row")
    r_new = pl.DataFrame(r_rows, schema=["game_id", "seat", "bot", "score", "rank"], orient="row")
    g_fill = games.head(1).drop(g_new.columns).select(pl.all().repeat_by(g_new.height).explode())
    r_fill = results.head(1).drop(r_new.columns).select(pl.all().repeat_by(r_new.height).explode())
    g_new = pl.concat([g_new, g_fill], how="horizontal").select(
        [pl.col(c).cast(games.schema[c]) for c in games.columns])
    r_new = pl.concat([r_new, r_fill], how="horizontal").with_columns(
        (pl.col("rank") == 1).alias("is_winner")).select(
        [pl.col(c).cast(results.schema[c]) for c in results.columns])
    return {"games": pl.concat([games, g_new]), "results": pl.concat([results, r_new])}


def test_self_games_leave_the_elo_ratings_and_inform_the_first_mover_edge():
    edge = 100.0
    base = synthetic_league([("a", 0.0), ("b", 0.0), ("c", 0.0)], 300, edge=edge, seed=2)
    p_edge = 1.0 / (1.0 + 10.0 ** (-edge / 400.0))
    mixed = with_self_games(base, 300, p_edge, seed=7)  # self games with the same edge
    before = fit_elo(base["results"], base["games"], bootstrap=0)
    after = fit_elo(mixed["results"], mixed["games"], bootstrap=0)
    r0 = dict(zip(before.table["bot"], before.table["rating"]))
    r1 = dict(zip(after.table["bot"], after.table["rating"]))
    assert max(abs(r0[b] - r1[b]) for b in r0) < 2.0  # a bot against itself: no rating information
    assert abs(after.first_move[0] - edge) < 40 and abs(before.first_move[0] - edge) < 40
    # the first mover's edge is fitted from the self games too: seat 0 winning them all moves it up
    won = with_self_games(base, 300, 1.0, seed=7)
    pushed = fit_elo(won["results"], won["games"], bootstrap=0)
    assert pushed.first_move[0] > before.first_move[0] + 100
    # only self games: the ratings are the ridge's zeros, the edge is the seat-0 rate's log-odds
    only = with_self_games(base, 300, p_edge, seed=7)
    own = only["results"].filter(pl.col("bot").n_unique().over("game_id") == 1)
    fit = fit_elo(own, only["games"], bootstrap=0)
    assert np.allclose(fit.table["rating"].to_numpy(), 0.0, atol=1e-9)
    wins = own.filter(seat=0)["rank"].eq(1).mean()
    assert fit.first_move[0] == pytest.approx(400 * np.log10(wins / (1 - wins)), abs=1.0)


def test_self_games_leave_plackett_luce_and_openskill_alone():
    base = synthetic_multi_league([("a", 100.0), ("b", 0.0), ("c", -100.0), ("d", 0.0)], 200, 3,
                                  seat_edge=0.0, seed=3)
    mixed = with_self_games(base, 200, None, seed=8)  # every finishing order alike: no seat edge
    before = fit_plackett_luce(base["results"], base["games"], num_players=3, bootstrap=0)
    after = fit_plackett_luce(mixed["results"], mixed["games"], num_players=3, bootstrap=0)
    r0 = dict(zip(before.table["bot"], before.table["rating"]))
    r1 = dict(zip(after.table["bot"], after.table["rating"]))
    assert max(abs(r0[b] - r1[b]) for b in r0) < 3.0
    assert np.allclose(after.seats["edge"].to_numpy(), 0.0, atol=20.0)
    # OpenSkill skips the self games: the same table as without them
    assert openskill_table(mixed["results"], mixed["games"], num_players=3).equals(
        openskill_table(base["results"], base["games"], num_players=3))
    equal = seat_advantage(mixed["results"], mixed["games"]).filter(
        (pl.col("between") == "equal") & pl.col("bot").is_null())
    assert equal["games"].to_list() == [800, 800, 800]  # 4 bots x 200 deals


def test_standings_leave_out_the_self_games(played):
    """A bot's standings count only its games against other bots (each bot meets two others over
    3 deals x 2 seatings: 12 games); the self games are in the total, not in any bot's row."""
    _, summary, _ = played
    rows = {r.bot: r for r in summary.standings}
    assert {b: r.games for b, r in rows.items()} == {"greedy": 12, "r": 12, "s": 12}
    records = read_records(summary.run_dir)
    table = standings(records["results"], records["games"])
    assert dict(zip(table["bot"], table["games"])) == {"greedy": 12, "r": 12, "s": 12}
    assert sum(r.wins for r in summary.standings) == 18  # one winner a mixed game (no shared ranks here)


def test_faults_in_self_play_games_do_not_make_a_bot_look_like_it_forfeited_everything():
    from tournament.standings import Tally

    tally = Tally(["a", "b"])
    tally.add_game(["a", "b"], [10, 5], [1, 2], "normal", None)
    tally.add_game(["a", "a"], [3, 4], [2, 1], "error", 0)
    tally.add_game(["a", "a"], [3, 4], [1, 2], "error", 1)
    tally.add_game(["b", "b"], [0, 0], [1, 1], "error", 0)
    a = {r.bot: r for r in tally.standings()}["a"]
    assert (a.games, a.faults) == (1, 2)  # faults over standings games alone would flag a
    assert tally.forfeited_every_game() == []  # a played one game cleanly; b one self game of two
    tally.add_game(["a", "b"], [0, 9], [2, 1], "timeout", 0)
    tally.add_game(["b", "b"], [0, 0], [1, 1], "error", 1)
    assert tally.forfeited_every_game() == []
    lone = Tally(["c", "d"])
    lone.add_game(["c", "d"], [0, 0], [2, 1], "error", 0)
    lone.add_game(["c", "c"], [0, 0], [2, 1], "error", 1)
    assert lone.forfeited_every_game() == [("c", 2)]
