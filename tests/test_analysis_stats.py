"""analysis.stats: standings, crosstable and seat advantage with Wilson intervals; ``azul standings``."""
from __future__ import annotations

import csv
import io
import json

import polars as pl
import pytest
from typer.testing import CliRunner

from analysis.coverage import win_rate_coverage
from analysis.stats import crosstable, seat_advantage, standings, wilson
from analysis.synthetic import synthetic_league, write_league
from azul_cli.main import app

runner = CliRunner()
FOUR = [("a", 300.0), ("b", 100.0), ("c", -100.0), ("d", -300.0)]


def results(rows: list[tuple]) -> pl.DataFrame:
    """(game_id, seat, bot, score, rank, floor, bonus) rows as a results frame."""
    cols = ["game_id", "seat", "bot", "score", "rank", "floor_penalty_total", "bonus_points"]
    frame = pl.DataFrame(rows, schema=cols, orient="row")
    return frame.with_columns(pl.lit("r").alias("run_id"), (pl.col("rank") == 1).alias("is_winner"))


# A beats B twice (A in seat 0, then seat 1), the third game is a shared first place.
THREE = results([("g1", 0, "A", 50, 1, 4, 10), ("g1", 1, "B", 30, 2, 8, 0),
                 ("g2", 0, "B", 20, 2, 6, 2), ("g2", 1, "A", 40, 1, 2, 7),
                 ("g3", 0, "A", 30, 1, 0, 4), ("g3", 1, "B", 30, 1, 1, 4)])


def test_wilson_matches_known_values():
    assert wilson(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)


def test_standings_on_known_games():
    table = standings(THREE)
    assert table["bot"].to_list() == ["A", "B"]
    a = table.row(0, named=True)
    assert (a["games"], a["wins"], a["shared"], a["losses"]) == (3, 2, 1, 0)
    assert a["win_rate"] == pytest.approx(2.5 / 3)
    assert (a["low"], a["high"]) == pytest.approx(wilson(2.5, 3))
    # the mean of its per-game shares (not 120 / 200, the total over the total)
    assert a["score_share"] == pytest.approx((50 / 80 + 40 / 60 + 30 / 60) / 3)
    assert a["mean_score"] == pytest.approx(40.0)
    assert a["score_low"] < 40.0 < a["score_high"]
    assert a["mean_floor_penalty"] == pytest.approx(2.0) and a["mean_bonus"] == pytest.approx(7.0)
    b = table.row(1, named=True)
    assert (b["games"], b["wins"], b["shared"], b["losses"]) == (3, 0, 1, 2)
    assert b["win_rate"] == pytest.approx(0.5 / 3) and b["score_share"] == pytest.approx(1 - a["score_share"])


def test_standings_keep_only_the_listed_games():
    games = pl.DataFrame({"run_id": ["r", "r"], "game_id": ["g1", "g2"]})
    a = standings(THREE, games).row(0, named=True)
    assert (a["bot"], a["games"], a["wins"], a["shared"]) == ("A", 2, 2, 0)


def test_crosstable_on_known_games():
    table = crosstable(THREE)
    assert table.select("bot", "opponent").rows() == [("A", "B"), ("B", "A")]
    ab, ba = table.row(0, named=True), table.row(1, named=True)
    assert (ab["games"], ab["wins"], ab["shared"], ab["losses"]) == (3, 2, 1, 0)
    assert ab["score"] == pytest.approx(2.5 / 3) and ba["score"] == pytest.approx(0.5 / 3)
    assert (ab["low"], ab["high"]) == pytest.approx(wilson(2.5, 3))
    assert (ba["low"], ba["high"]) == pytest.approx(wilson(0.5, 3))


def test_crosstable_skips_games_of_more_players():
    three = results([("g9", 0, "A", 10, 1, 0, 0), ("g9", 1, "B", 5, 2, 0, 0),
                     ("g9", 2, "C", 1, 3, 0, 0)])
    assert crosstable(pl.concat([THREE, three])).height == 2
    with pytest.raises(ValueError, match="no 2-player games"):
        crosstable(three)


def test_seat_advantage_finds_a_first_mover_edge():
    # 3 bots, 300 deals a table, each played in both seatings; the first mover has +100 Elo
    # (an expected 0.64 for seat 0 between equal bots).
    league = synthetic_league([("a", 100.0), ("b", 0.0), ("c", -100.0)], 300, edge=100.0, seed=2)
    table = seat_advantage(league["results"], league["games"])
    assert table["between"].unique().to_list() == ["all"]  # no game seats a bot twice
    overall = table.filter(pl.col("bot").is_null()).sort("seat")
    assert overall["seat"].to_list() == [0, 1] and overall["games"].to_list() == [1800, 1800]
    seat0 = overall.row(0, named=True)
    assert seat0["low"] > 0.5 and 0.58 < seat0["win_rate"] < 0.70
    assert overall.row(1, named=True)["high"] < 0.5
    assert seat0["expected"] == 0.5
    per_bot = table.filter(pl.col("bot").is_not_null())
    assert per_bot.height == 6 and per_bot["games"].to_list() == [600] * 6
    for bot in "abc":  # every bot does better as the first mover
        rows = per_bot.filter(bot=bot).sort("seat")["win_rate"].to_list()
        assert rows[0] > rows[1], bot


# Two games of A against B and four of a bot against itself (self-play): seat 0 wins g1, g4, g6;
# seat 1 wins g2 and g5; g3 is a shared first place between the two copies of A.
SELF = results([("g1", 0, "A", 50, 1, 0, 0), ("g1", 1, "B", 30, 2, 0, 0),
                ("g2", 0, "B", 20, 2, 0, 0), ("g2", 1, "A", 40, 1, 0, 0),
                ("g3", 0, "A", 30, 1, 0, 0), ("g3", 1, "A", 30, 1, 0, 0),
                ("g4", 0, "A", 35, 1, 0, 0), ("g4", 1, "A", 25, 2, 0, 0),
                ("g5", 0, "B", 10, 2, 0, 0), ("g5", 1, "B", 15, 1, 0, 0),
                ("g6", 0, "B", 12, 1, 0, 0), ("g6", 1, "B", 11, 2, 0, 0)])


def test_seat_advantage_between_equal_bots():
    table = seat_advantage(SELF)
    rows = {(r["between"], r["bot"], r["seat"]): (r["games"], r["win_rate"])
            for r in table.iter_rows(named=True)}
    # every game, as before: seat 0 scores 1 + 0 + 1/2 + 1 + 0 + 1 of 6
    assert rows["all", None, 0] == (6, 3.5 / 6) and rows["all", None, 1] == (6, 2.5 / 6)
    assert rows["all", "A", 0] == (3, 2.5 / 3) and rows["all", "A", 1] == (3, 1.5 / 3)
    # only the 4 games between equal bots, pooled and per bot
    assert rows["equal", None, 0] == (4, 2.5 / 4) and rows["equal", None, 1] == (4, 1.5 / 4)
    assert rows["equal", "A", 0] == (2, 0.75) and rows["equal", "A", 1] == (2, 0.25)
    assert rows["equal", "B", 0] == (2, 0.5) and rows["equal", "B", 1] == (2, 0.5)
    assert len(rows) == table.height == 12
    assert table["between"].to_list() == ["all"] * 6 + ["equal"] * 6  # "all" first
    assert table.filter(pl.col("between") == "equal")["bot"].to_list() == [None, None, "A", "A", "B", "B"]
    # the crosstable leaves a bot against itself out
    cross = crosstable(SELF)
    assert cross.select("bot", "opponent").rows() == [("A", "B"), ("B", "A")]
    assert cross["games"].to_list() == [2, 2] and cross["score"].to_list() == [1.0, 0.0]


def test_no_edge_gives_an_interval_around_half():
    league = synthetic_league([("a", 0.0), ("b", 0.0)], 400, edge=0.0, seed=3, shared_luck=False)
    seat0 = seat_advantage(league["results"]).filter(pl.col("bot").is_null(), seat=0)
    assert seat0["low"].item() < 0.5 < seat0["high"].item()


@pytest.fixture
def run_dir(tmp_path):
    """A run folder in the records' layout, written from a synthetic 3-bot league."""
    league = synthetic_league([("a", 100.0), ("b", 0.0), ("c", -100.0)], 40, seed=4)
    return write_league(league, tmp_path / "league")


def test_the_command_in_every_format(run_dir):
    result = runner.invoke(app, ["standings", str(run_dir), "--format", "csv"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output)))
    bots = [r["bot"] for r in rows]
    assert len(bots) == len(set(bots)) >= 2 and {"games", "win_rate", "low", "high"} <= set(rows[0])
    result = runner.invoke(app, ["standings", str(run_dir), "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["what"] == "standings" and sorted(r["bot"] for r in doc["rows"]) == sorted(bots)
    assert all(r["low"] <= r["win_rate"] <= r["high"] for r in doc["rows"])
    result = runner.invoke(app, ["standings", str(run_dir), "-f", "json", "--what", "crosstable"])
    assert result.exit_code == 0, result.output
    pairs = json.loads(result.output)["rows"]
    assert len(pairs) == len(bots) * (len(bots) - 1)
    result = runner.invoke(app, ["standings", str(run_dir), "-f", "csv", "--what", "seats"])
    assert result.exit_code == 0, result.output
    seats = list(csv.DictReader(io.StringIO(result.output)))
    assert len(seats) == 2 * (len(bots) + 1)
    for what in ("standings", "crosstable", "seats"):
        result = runner.invoke(app, ["standings", str(run_dir), "--what", what])
        assert result.exit_code == 0 and "95%" in result.output and bots[0] in result.output


def test_the_command_fails_in_one_line(tmp_path):
    (tmp_path / "empty" / "games").mkdir(parents=True)
    result = runner.invoke(app, ["standings", str(tmp_path / "empty")])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"error: {tmp_path / 'empty'}: no game records (no games/*.parquet)"]


def test_seat_advantage_counts_seats_from_the_series_opener():
    """Game two of a series is opened by seat 1: moving every seat one step and marking the
    games ``series_game`` 2 must give the same table as the original games."""
    league = synthetic_league([("a", 100.0), ("b", 0.0)], 80, edge=150.0, seed=4)
    games, results = league["games"], league["results"]
    moved = results.with_columns(((pl.col("seat") + 1) % 2).cast(pl.Int32))
    marked = games.with_columns(pl.lit(2, dtype=pl.Int32).alias("series_game"))
    plain = seat_advantage(results, games)
    assert seat_advantage(moved, marked).equals(plain)
    first = plain.filter(pl.col("bot").is_null() & (pl.col("seat") == 0))["win_rate"][0]
    assert first > 0.55  # the planted first-mover edge shows at seat 0


def test_one_score_share_and_one_win_rate_everywhere():
    """The league's table (Tally), the standings and the ratings table give the same numbers."""
    from analysis.elo import ratings_table
    from tournament.standings import Tally

    games = pl.DataFrame({"run_id": ["r"] * 3, "game_id": ["g1", "g2", "g3"],
                          "termination": ["normal"] * 3, "fault_seat": [None] * 3})
    tally = Tally(["A", "B"])
    tally.add_tables(games.drop("run_id").to_arrow(), THREE.drop("run_id").to_arrow())
    league = {r.bot: r for r in tally.standings()}
    table = {r["bot"]: r for r in standings(THREE).iter_rows(named=True)}
    rated = {r["bot"]: r for r in ratings_table(THREE, games, ["A", "B"], [0, 0], [0, 0], [0, 0])
             .iter_rows(named=True)}
    for bot in "AB":
        assert league[bot].score_share == pytest.approx(table[bot]["score_share"])
        assert rated[bot]["score_share"] == pytest.approx(table[bot]["score_share"])
        assert league[bot].win_rate == pytest.approx(table[bot]["win_rate"])
        assert (league[bot].wins, league[bot].shared) == (table[bot]["wins"], table[bot]["shared"])


def test_a_deal_of_alike_games_counts_as_one_game():
    """10 deals of two games each; A wins both games of 6 deals and loses both of 4. Named
    deals: the design effect is 2 (every game of a deal alike), so the interval is that of 6
    wins in 10, not of 12 in 20."""
    rows, deals = [], []
    for d in range(10):
        for arr in range(2):
            gid, a_wins = f"d{d}-a{arr}", d < 6
            rows += [(gid, arr, "A", 50, 1 if a_wins else 2, 0, 0),
                     (gid, 1 - arr, "B", 40, 2 if a_wins else 1, 0, 0)]
            deals.append((gid, 0, d))
    frame = results(rows)
    games = pl.DataFrame(deals, schema=["game_id", "table", "deal"], orient="row").with_columns(
        pl.lit("r").alias("run_id"))
    a = standings(frame, games).filter(bot="A").row(0, named=True)
    assert a["win_rate"] == pytest.approx(0.6)
    assert (a["low"], a["high"]) == pytest.approx(wilson(6, 10))
    plain = standings(frame).filter(bot="A").row(0, named=True)  # no deals named: 20 games
    assert (plain["low"], plain["high"]) == pytest.approx(wilson(12, 20))
    ab = crosstable(frame, games).filter(bot="A").row(0, named=True)
    assert (ab["low"], ab["high"]) == pytest.approx(wilson(6, 10))


def test_the_clustered_interval_keeps_its_95_percent_where_wilson_does_not():
    """Seat-rotated leagues whose deals' luck is shared by both games: the plain Wilson interval
    of a bot's win rate holds the truth about 0.89 of the time, the deal-clustered one about
    0.96 (benchmarks/bench_coverage.py, 400 leagues)."""
    got = win_rate_coverage(FOUR, 20, reps=100)
    assert got["wilson"].rate <= 0.925, got["wilson"].line("wilson")
    assert 0.93 <= got["clustered"].rate <= 0.99, got["clustered"].line("clustered")
    assert got["clustered"].rate - got["wilson"].rate >= 0.035
