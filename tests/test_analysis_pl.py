"""analysis: Plackett-Luce ratings for 3 and 4 players, per player count, OpenSkill, azul elo."""
from __future__ import annotations

import csv
import io
import json
from itertools import permutations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from typer.testing import CliRunner

from analysis import fit_elo, fit_plackett_luce, openskill_table, rate_by_players
from analysis.coverage import rating_coverage
from analysis.plackett_luce import order_coefficients
from analysis.synthetic import synthetic_league, synthetic_multi_league, write_league
from azul_cli.main import app

runner = CliRunner()
TRUTH = [("a", 300.0), ("b", 100.0), ("c", -100.0), ("d", -300.0), ("e", 0.0)]  # mean 0
SCALE = 400.0 / np.log(10.0)


def ratings(fit) -> dict[str, float]:
    return {row["bot"]: row["rating"] for row in fit.table.iter_rows(named=True)}


@pytest.mark.parametrize("players, deals", [(3, 150), (4, 60)])
def test_the_fit_recovers_known_strengths(players, deals):
    league = synthetic_multi_league(TRUTH, deals, players, seat_edge=60.0, seed=players)
    fit = fit_plackett_luce(league["results"], league["games"], num_players=players,
                            bootstrap=30, seed=1)
    assert list(fit.table.columns) == ["bot", "games", "rating", "low", "high", "score_share"]
    assert fit.table["bot"].to_list() == ["a", "b", "e", "c", "d"]  # best first
    tables = {3: 10, 4: 5}[players]  # every set of `players` bots of 5
    games_each = tables * players // 5 * deals * players
    assert fit.table["games"].to_list() == [games_each] * 5
    for bot, elo in TRUTH:
        assert abs(ratings(fit)[bot] - elo) < 30, (bot, ratings(fit))
    assert abs(fit.table["rating"].mean()) < 1e-6
    assert all(r["low"] < r["rating"] < r["high"] for r in fit.table.iter_rows(named=True))
    edge, low, high = fit.first_move  # seat 0 over the others' mean: the generator's seat_edge
    assert abs(edge - 60.0) < 20 and low < edge < high
    seats = fit.seats
    assert seats["seat"].to_list() == list(range(players))
    assert abs(seats["edge"][0] - 60.0 * (players - 1) / players) < 20  # over the mean seat
    assert seats["edge"].sum() == pytest.approx(0.0, abs=1e-6)
    assert fit.superiority.filter(bot="a", other="d")["los"].item() == 1.0
    assert fit.superiority.filter(bot="d", other="a")["los"].item() == 0.0
    assert fit.unbounded == [] and fit.num_players == players


def test_for_two_players_it_is_the_two_player_fit():
    """A shared rank as the mean of both orders is exactly the 2-player fit's half a win."""
    league = synthetic_league(TRUTH[:4], 40, edge=40.0, seed=2)
    results = league["results"].with_columns(  # some draws
        rank=pl.when(pl.col("game_id").str.ends_with("7-a00")).then(1).otherwise(pl.col("rank")))
    two = fit_elo(results, league["games"], bootstrap=0)
    pl_fit = fit_plackett_luce(results, league["games"], num_players=2, bootstrap=0)
    assert pl_fit.table["bot"].to_list() == two.table["bot"].to_list()
    assert np.allclose(pl_fit.table["rating"].to_numpy(), two.table["rating"].to_numpy(),
                       atol=1e-6)
    assert pl_fit.first_move[0] == pytest.approx(two.first_move[0], abs=1e-6)


@pytest.mark.parametrize("ranks", [(1, 2, 3, 4), (1, 1, 3, 4), (2, 1, 2, 4), (1, 1, 1, 4),
                                   (3, 3, 1, 3), (1, 1, 1, 1), (4, 1, 2, 2), (1, 1, 3, 3)])
def test_a_tie_counts_as_the_mean_over_its_orders(ranks):
    """The coefficients give the mean log-likelihood of the full orders the ranks allow."""
    eta = np.random.default_rng(sum(ranks)).normal(size=4)

    def log_pl(order):
        return sum(eta[s] - np.log(np.exp(eta[list(order[i:])]).sum())
                   for i, s in enumerate(order))

    orders = [o for o in permutations(range(4))
              if all(ranks[o[i]] <= ranks[o[i + 1]] for i in range(3))]
    want = np.mean([log_pl(o) for o in orders])
    c = order_coefficients(ranks, 4)
    got = eta.sum() - sum(c[m] * np.log(sum(np.exp(eta[s]) for s in range(4) if m >> s & 1))
                          for m in range(1, 16) if c[m])
    assert got == pytest.approx(want, abs=1e-12)


def test_the_intervals_keep_their_95_percent_and_resample_whole_deals():
    # The rotations of a synthetic deal share its luck (one Gumbel draw per bot), as a real
    # deal's games share the tiles. 3 players: 4 bots, 20 deals; 4 players: 5 bots, 8 deals.
    # benchmarks/bench_coverage.py (300 leagues each) measures the deal jackknife's intervals
    # (the default) at 0.953 +- 0.007 (3 players) and 0.957 +- 0.006 (4 players), the
    # percentile intervals at 0.917 and 0.927 (docs/analysis.md, "The intervals").
    methods = ("jackknife", "percentile")
    three = rating_coverage(TRUTH[:4], 20, players=3, reps=40, intervals=methods, bootstrap=100)
    four = rating_coverage(TRUTH, 8, players=4, reps=30, intervals=methods, bootstrap=100)
    hits = np.concatenate([three["jackknife"].hits.ravel(), four["jackknife"].hits.ravel()])
    assert 0.92 <= hits.mean() <= 0.99, (three["jackknife"].line("3p"), four["jackknife"].line("4p"))
    edges = np.concatenate([three["jackknife"].first_move.hits, four["jackknife"].first_move.hits])
    assert edges.mean() >= 0.85  # the seat term's interval too
    # Without table/deal each game is its own deal: the intervals shrink by about sqrt(players)
    # and miss far more often.
    three_games = rating_coverage(TRUTH[:4], 20, players=3, reps=8, by_deal=False, bootstrap=20)
    four_games = rating_coverage(TRUTH, 8, players=4, reps=5, by_deal=False, bootstrap=20)
    assert three["jackknife"].width > 1.35 * three_games["jackknife"].width
    assert four["jackknife"].width > 1.5 * four_games["jackknife"].width
    by_game = np.concatenate([three_games["jackknife"].hits.ravel(),
                              four_games["jackknife"].hits.ravel()])
    assert by_game.mean() < hits.mean() - 0.05


def test_many_ties_still_recover_the_strengths():
    league = synthetic_multi_league(TRUTH[:4], 400, 3, seat_edge=60.0, tie_rate=0.45, seed=8)
    per_game = league["results"].group_by("game_id").agg(pl.col("rank").n_unique().alias("k"))
    assert (per_game["k"] < 3).mean() > 0.2  # many games with a shared rank
    fit = fit_plackett_luce(league["results"], league["games"], num_players=3, bootstrap=0)
    for bot, elo in TRUTH[:4]:
        assert abs(ratings(fit)[bot] - elo) < 30, ratings(fit)
    assert abs(fit.first_move[0] - 60.0) < 20


def test_all_equal_ranks_give_equal_ratings():
    league = synthetic_multi_league(TRUTH, 5, 4, seed=9)
    fit = fit_plackett_luce(league["results"].with_columns(rank=1), league["games"],
                            num_players=4, bootstrap=10)
    assert np.allclose(fit.table["rating"].to_numpy(), 0.0, atol=1e-6)
    assert np.allclose(fit.seats["edge"].to_numpy(), 0.0, atol=1e-6)
    assert fit.unbounded == []


def test_a_bot_that_always_wins_is_unbounded():
    league = synthetic_multi_league(TRUTH[:4], 10, 3, seed=10)
    res = league["results"]
    with_a = res.filter(pl.col("bot") == "a")["game_id"].to_list()
    res = res.with_columns(  # a first alone wherever it plays, the others in their order
        rank=pl.when(pl.col("bot") == "a").then(1)
        .when(pl.col("game_id").is_in(with_a)).then(pl.col("rank") + 1)
        .otherwise(pl.col("rank")))
    fit = fit_plackett_luce(res, league["games"], num_players=3, bootstrap=0)
    assert fit.unbounded == ["a"] and fit.table["bot"][0] == "a"


def test_clear_errors():
    league = synthetic_multi_league(TRUTH[:4], 3, 3, seed=11)
    with pytest.raises(ValueError, match="no 4-player games"):
        fit_plackett_luce(league["results"], league["games"], num_players=4)
    with pytest.raises(ValueError, match="anchor 'zz'"):
        fit_plackett_luce(league["results"], league["games"], num_players=3, anchor="zz")
    with pytest.raises(ValueError, match="bootstrap must be 0 or more"):
        fit_plackett_luce(league["results"], league["games"], num_players=3, bootstrap=-1)
    with pytest.raises(ValueError, match="players must be 2..4"):
        synthetic_multi_league(TRUTH[:4], 3, 5)
    with pytest.raises(ValueError, match="tie_rate must be 0..0.5"):
        synthetic_multi_league(TRUTH[:4], 3, 3, tie_rate=0.8)


def _mixed(deals: int = 30):
    """A 2-player league of a, b, c and a 3-player league of b, c, d, e in one record set."""
    two = synthetic_league(TRUTH[:3], deals, seed=12, run_id="two")
    three = synthetic_multi_league(TRUTH[1:], deals, 3, seed=13, run_id="three")
    return {k: pl.concat([two[k], three[k]]) for k in ("games", "results")}, two, three


def test_ratings_are_kept_apart_per_player_count():
    both, two, three = _mixed()
    fits = rate_by_players(both["results"], both["games"], bootstrap=20, seed=3)
    assert list(fits) == [2, 3]
    alone2 = fit_elo(two["results"], two["games"], bootstrap=20, seed=3)
    alone3 = fit_plackett_luce(three["results"], three["games"], num_players=3, bootstrap=20,
                               seed=3)
    for got, want in ((fits[2], alone2), (fits[3], alone3)):
        assert_frame_equal(got.table, want.table)
        assert got.first_move == pytest.approx(want.first_move)
    assert sorted(fits[2].table["bot"]) == ["a", "b", "c"]
    assert sorted(fits[3].table["bot"]) == ["b", "c", "d", "e"]
    # an anchor met in one count only: that count is anchored, the other centred on its mean
    fits = rate_by_players(both["results"], both["games"], anchor="d", anchor_value=500.0,
                           bootstrap=0)
    assert ratings(fits[3])["d"] == pytest.approx(500.0)
    assert fits[2].table["rating"].mean() == pytest.approx(0.0, abs=1e-6)
    with pytest.raises(ValueError, match="anchor 'zz' is not a bot"):
        rate_by_players(both["results"], both["games"], anchor="zz")


def test_openskill_orders_a_clear_league_and_ignores_row_order():
    league = synthetic_multi_league(TRUTH, 40, 4, seed=14)
    table = openskill_table(league["results"], league["games"], num_players=4)
    assert list(table.columns) == ["bot", "games", "mu", "sigma", "ordinal"]
    assert table["bot"].to_list() == ["a", "b", "e", "c", "d"]
    assert table["games"].to_list() == [4 * 40 * 4] * 5
    assert (table["sigma"] < 25 / 3).all()  # every game taught it something
    shuffled = openskill_table(league["results"].sample(fraction=1.0, shuffle=True, seed=1),
                               league["games"].reverse(), num_players=4)
    assert shuffled.equals(table)  # games taken in (run_id, game_id) order, whatever the rows
    with pytest.raises(ValueError, match="no 2-player games"):
        openskill_table(league["results"], league["games"], num_players=2)


@pytest.fixture(scope="module")
def run3(tmp_path_factory):
    return write_league(synthetic_multi_league(TRUTH[:4], 25, 3, seed=15, run_id="p3"),
                        tmp_path_factory.mktemp("p3") / "p3")


def test_the_command_on_a_three_player_league(run3, tmp_path):
    result = runner.invoke(app, ["elo", str(run3), "--format", "csv", "--bootstrap", "40"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert list(rows[0]) == ["num_players", "bot", "games", "rating", "low", "high",
                             "score_share"]
    assert [r["bot"] for r in rows] == ["a", "b", "c", "d"]
    assert {r["num_players"] for r in rows} == {"3"}

    result = runner.invoke(app, ["elo", str(run3), "-f", "json", "-b", "40", "--openskill",
                                 "--anchor", "d", "--anchor-value", "100"])
    assert result.exit_code == 0, result.output
    (entry,) = json.loads(result.output)
    assert entry["num_players"] == 3 and entry["anchor"] == "d"
    assert {b["bot"]: b["rating"] for b in entry["bots"]}["d"] == 100.0
    assert all({"mu", "sigma"} <= set(b) for b in entry["bots"])
    assert [s["seat"] for s in entry["seats"]] == [0, 1, 2] and "first_move" not in entry
    assert set(entry["superiority"]) == {"a", "b", "c", "d"} and entry["unbounded"] == []

    two = write_league(synthetic_league(TRUTH[:3], 10, seed=16, run_id="p2"), tmp_path / "p2")
    result = runner.invoke(app, ["elo", str(run3), str(two), "-b", "40", "--openskill"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.index("2 players") < out.index("first mover's edge") < out.index("3 players")
    assert "seat edges over the mean seat: seat 0" in out and "sigma" in out
    result = runner.invoke(app, ["elo", str(run3), str(two), "-f", "json", "-b", "0"])
    assert [e["num_players"] for e in json.loads(result.output)] == [2, 3]
    assert "first_move" in json.loads(result.output)[0]

    result = runner.invoke(app, ["elo", str(run3), "--anchor", "nobody"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "error: anchor 'nobody' is not a bot of these games (bots: a, b, c, d)"]
