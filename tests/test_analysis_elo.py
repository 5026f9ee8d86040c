"""analysis: reading run folders, the Elo fit, its bootstrap intervals, and ``azul elo``."""
from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import yaml
from typer.testing import CliRunner

from analysis import fit_elo, read_records, read_table
from analysis.coverage import rating_coverage
from analysis.synthetic import synthetic_league, write_league
from azul_cli.main import app

runner = CliRunner()
TRUTH = [("a", 300.0), ("b", 100.0), ("c", -100.0), ("d", -300.0)]  # centred: mean 0


def ratings(fit) -> dict[str, dict]:
    return {row["bot"]: row for row in fit.table.iter_rows(named=True)}


def test_the_fit_recovers_the_truth_on_a_big_league():
    league = synthetic_league(TRUTH, 600, edge=50.0, seed=1)
    fit = fit_elo(league["results"], league["games"], bootstrap=50, seed=1)
    got = ratings(fit)
    assert list(fit.table.columns) == ["bot", "games", "rating", "low", "high", "score_share"]
    assert fit.table["bot"].to_list() == ["a", "b", "c", "d"]  # best first
    for bot, elo in TRUTH:
        assert got[bot]["games"] == 3 * 600 * 2
        assert abs(got[bot]["rating"] - elo) < 30, (bot, got[bot])
        assert got[bot]["low"] < got[bot]["rating"] < got[bot]["high"]
    assert abs(fit.table["rating"].mean()) < 1e-6  # centred on the pool's mean
    edge, low, high = fit.first_move
    assert abs(edge - 50.0) < 25 and low < edge < high
    assert fit.superiority.filter(bot="a", other="d")["los"].item() == 1.0
    assert fit.unbounded == []


def test_the_intervals_keep_their_95_percent():
    """The deal-jackknife intervals (the default) hold the true ratings 93-97% of the time; the
    percentile intervals of the same resamples about 0.90 (benchmarks/bench_coverage.py, 300
    leagues: 0.959 +- 0.006 against 0.905 +- 0.010). 150 leagues of 4 bots give a standard error
    of about 0.009 (clustered by league); the paired comparison on the same leagues is sharper."""
    got = rating_coverage(TRUTH, 20, reps=150, intervals=("jackknife", "percentile"))
    jack, pct = got["jackknife"], got["percentile"]
    assert 0.925 <= jack.rate <= 0.985, jack.line("jackknife")
    assert jack.rate - pct.rate >= 0.02, (jack.line("jackknife"), pct.line("percentile"))
    assert jack.width < 1.05 * pct.width  # not bought with width


def test_the_intervals_resample_whole_deals():
    # The two games of a synthetic deal share its luck, as a real deal's games do. Records
    # without table/deal: each game is its own deal. Leaving out (or resampling) games ignores
    # the correlation within a deal, so the intervals come out too narrow (about 1/sqrt(2)).
    by_deal = rating_coverage(TRUTH, 20, reps=30)["jackknife"]
    by_game = rating_coverage(TRUTH, 20, reps=30, by_deal=False)["jackknife"]
    assert by_deal.width > 1.25 * by_game.width, (by_deal.width, by_game.width)
    assert by_game.rate < by_deal.rate
    # With independent games the two agree: the width comes from the deals, not from a fudge.
    independent = [rating_coverage(TRUTH, 20, reps=10, by_deal=b, shared_luck=False)["jackknife"]
                   for b in (True, False)]
    assert 0.85 < independent[0].width / independent[1].width < 1.15


def test_no_bootstrap_gives_no_intervals():
    league = synthetic_league(TRUTH, 10, seed=3)
    fit = fit_elo(league["results"], league["games"], bootstrap=0)
    assert fit.table["low"].is_nan().all() and fit.table["high"].is_nan().all()
    assert fit.superiority.filter(bot="a", other="b")["los"].item() is None


def test_anchor_puts_a_bot_at_a_value():
    league = synthetic_league(TRUTH, 50, seed=4)
    free = ratings(fit_elo(league["results"], league["games"], bootstrap=20, seed=0))
    fit = fit_elo(league["results"], league["games"], anchor="d", anchor_value=1000.0,
                  bootstrap=20, seed=0)
    got = ratings(fit)
    assert got["d"]["rating"] == pytest.approx(1000.0)
    assert got["d"]["low"] == pytest.approx(1000.0) and got["d"]["high"] == pytest.approx(1000.0)
    for bot, _ in TRUTH:  # the same ratings, shifted
        assert got[bot]["rating"] - got["d"]["rating"] == pytest.approx(
            free[bot]["rating"] - free["d"]["rating"])
    with pytest.raises(ValueError, match="anchor 'zz'"):
        fit_elo(league["results"], league["games"], anchor="zz")


def test_a_draw_counts_half():
    league = synthetic_league([("x", 0.0), ("y", 0.0)], 30, edge=0.0, seed=5)
    draws = league["results"].with_columns(rank=1)  # every game a shared first place
    fit = fit_elo(draws, league["games"], bootstrap=0)
    assert np.allclose(fit.table["rating"].to_numpy(), 0.0, atol=1e-6)
    assert fit.first_move[0] == pytest.approx(0.0, abs=1e-6)


def test_reading_several_folders_skips_temporary_parts(tmp_path):
    one = write_league(synthetic_league(TRUTH, 5, seed=6, run_id="one"), tmp_path / "one")
    two = write_league(synthetic_league(TRUTH, 5, seed=7, run_id="two"), tmp_path / "two")
    (one / "results" / ".part-000002.parquet.tmp").write_bytes(b"not parquet")
    records = read_records([one, two])
    assert records["games"].height == 2 * 6 * 5 * 2
    assert records["results"].height == 2 * records["games"].height
    assert set(records["results"]["run_id"].unique()) == {"one", "two"}
    with pytest.raises(ValueError, match="unknown table"):
        read_table(one, "nope")


def test_a_folder_without_records_is_a_clear_error(tmp_path):
    (tmp_path / "empty" / "games").mkdir(parents=True)
    with pytest.raises(ValueError, match=f"{tmp_path / 'empty'}: no game records"):
        read_records(tmp_path / "empty")
    result = runner.invoke(app, ["elo", str(tmp_path / "empty")])
    assert result.exit_code == 1
    message = f"error: {tmp_path / 'empty'}: no game records (no games/*.parquet)"
    assert result.output.strip().splitlines() == [message]


def test_analysis_does_not_import_ray_tournament_or_bots():
    import subprocess
    code = ("import sys, analysis, analysis.elo, analysis.records, analysis.synthetic;"
            "bad = [m for m in ('ray', 'tournament', 'bots') if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def real_run(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("league")
    config = tmp / "tiny.yaml"
    config.write_text(yaml.safe_dump({"name": "tiny", "deals": 3, "seed": 2, "out": str(tmp / "out"),
                                      "bots": ["random", "greedy", "heuristic"]}))
    result = runner.invoke(app, ["league", "run", str(config), "--workers", "0", "--no-mlflow",
                                 "--quiet"])
    assert result.exit_code == 0, result.output
    return tmp / "out" / "tiny"


def test_a_real_run_gives_one_row_per_bot(real_run):
    records = read_records(real_run)
    fit = fit_elo(records["results"], records["games"], bootstrap=20)
    assert sorted(fit.table["bot"].to_list()) == ["greedy", "heuristic", "random"]
    assert fit.table["games"].to_list() == [2 * 3 * 2] * 3  # 2 tables, 3 deals, 2 seatings
    assert fit.table.filter(bot="random")["rating"].item() == fit.table["rating"].min()
    assert fit.unbounded == ["random"]  # it never wins: only the ridge keeps its rating finite


def test_the_command_in_every_format(real_run):
    result = runner.invoke(app, ["elo", str(real_run), "--format", "csv", "--bootstrap", "40"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert [r["bot"] for r in rows] and set(rows[0]) == {"num_players", "bot", "games", "rating",
                                                         "low", "high", "score_share"}
    assert {r["num_players"] for r in rows} == {"2"}
    result = runner.invoke(app, ["elo", str(real_run), "--format", "json", "--bootstrap", "40",
                                 "--anchor", "random", "--seed", "3"])
    assert result.exit_code == 0, result.output
    (doc,) = json.loads(result.output)  # one entry per player count
    assert doc["num_players"] == 2
    assert {b["bot"]: b["rating"] for b in doc["bots"]}["random"] == 0.0
    assert set(doc["superiority"]) == {"random", "greedy", "heuristic"} and "first_move" in doc
    result = runner.invoke(app, ["elo", str(real_run), "--bootstrap", "40"])
    assert result.exit_code == 0 and "heuristic" in result.output and "first mover" in result.output
    result = runner.invoke(app, ["elo", str(real_run), "--anchor", "nobody"])
    assert result.exit_code == 1 and result.output.startswith("error: anchor 'nobody'")
    # one resample would print an interval of one estimate (859 .. 859): refused, saying how many
    for command in ("elo", "report"):
        result = runner.invoke(app, [command, str(real_run), "-b", "1"])
        assert result.exit_code == 1
        assert result.output == ("error: --bootstrap: 1 resamples are too few for a 95% interval: "
                                 "it needs 40 or more (0: no interval)\n")


@pytest.mark.parametrize("players", [2, 3])
def test_game_two_of_a_series_counts_its_opener_as_the_first_mover(players):
    """Game two of a series is opened by seat 1: relabelling every game's seats one step and
    marking it ``series_game`` 2 must give exactly the fit of the original games."""
    from analysis import rate_by_players
    from analysis.synthetic import synthetic_multi_league

    strengths = [("a", 150.0), ("b", 0.0), ("c", -150.0)]
    league = (synthetic_league(strengths, deals=150, edge=120.0, seed=5) if players == 2
              else synthetic_multi_league(strengths, deals=150, players=3, seat_edge=120.0, seed=5))
    games, results = league["games"], league["results"]
    moved = results.with_columns(((pl.col("seat") + 1) % players).cast(pl.Int32))
    marked = games.with_columns(pl.lit(2, dtype=pl.Int32).alias("series_game"))
    plain = rate_by_players(results, games, bootstrap=0)[players]
    series = rate_by_players(moved, marked, bootstrap=0)[players]
    assert plain.first_move[0] > 60  # the planted first-mover edge is found...
    assert series.first_move[0] == pytest.approx(plain.first_move[0], abs=1e-6)  # ...in both
    assert series.table["rating"].to_list() == pytest.approx(plain.table["rating"].to_list(), abs=1e-6)
    unmarked = rate_by_players(moved, games, bootstrap=0)[players]  # without the opener: wrong seat
    assert unmarked.first_move[0] < 0


def _with_self_games(league, bots, per_bot=20):
    """The league plus ``per_bot`` games of each bot against itself, seat 0 winning each."""
    games, results = league["games"], league["results"]
    rows, seats = [], []
    for b in bots:
        for k in range(per_bot):
            gid = f"self-{b}-{k:03d}"
            rows.append(games.row(0, named=True) | {"game_id": gid, "table": 99, "deal": k})
            for seat in (0, 1):
                seats.append(results.row(0, named=True) | {"game_id": gid, "seat": seat, "bot": b,
                                                           "rank": seat + 1, "is_winner": seat == 0})
    return (pl.concat([games, pl.DataFrame(rows, schema=games.schema)]),
            pl.concat([results, pl.DataFrame(seats, schema=results.schema)]))


@pytest.mark.parametrize("players", [2, 3])
def test_games_of_a_bot_against_itself_bound_nothing_and_count_no_game(players):
    from analysis import rate_by_players
    from analysis.synthetic import synthetic_multi_league

    strengths = [("a", 3000.0), ("b", 0.0), ("c", -3000.0)]  # a always first, c always last
    league = (synthetic_league(strengths, deals=30, seed=2) if players == 2
              else synthetic_multi_league(strengths, deals=30, players=3, seed=2, tie_rate=0.0))
    plain = rate_by_players(league["results"], league["games"], bootstrap=0)[players]
    games, results = _with_self_games(league, ["a", "c"])
    if players == 3:  # a 3-seat self game: seat 2 joins as a third copy, last
        extra = results.filter(pl.col("game_id").str.starts_with("self-") & (pl.col("seat") == 1))
        results = pl.concat([results, extra.with_columns(seat=pl.lit(2, pl.Int32), rank=pl.lit(3, pl.Int32))])
    mixed = rate_by_players(results, games, bootstrap=0)[players]
    assert sorted(mixed.unbounded) == sorted(plain.unbounded) and "a" in plain.unbounded
    assert mixed.table.sort("bot")["games"].to_list() == plain.table.sort("bot")["games"].to_list()
    assert mixed.table.sort("bot")["score_share"].to_list() == pytest.approx(
        plain.table.sort("bot")["score_share"].to_list())


def test_a_league_of_one_bot_against_itself_is_one_error_line(tmp_path):
    # a training run's self-play league holds only such games: azul elo and azul standings say so
    # alike, in one line (azul elo printed a traceback on a None score share)
    from test_league_support import league

    from tournament.config import parse_config
    from tournament.runner import run_league

    assert run_league(parse_config(league(tmp_path, [{"type": "greedy"}], name="sp", self_play=True)),
                      progress=False).complete
    for command in ("elo", "standings"):
        result = runner.invoke(app, [command, str(tmp_path / "sp")])
        assert result.exit_code == 1, command
        assert result.output.strip().splitlines() == ["error: no game between different bots in the records"]
    # and the league's own standings rate nobody (the fit's 0 [0, 0] for a bot with no counted game)
    assert [row["elo"] for row in json.loads((tmp_path / "sp" / "standings.json").read_text())] == [None]
