"""analysis.openings and analysis.marker: openings, the centre marker and its effect on winning;
``analysis.records.connect``; ``azul openings`` and ``azul marker``."""
from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_league_support import league
from typer.testing import CliRunner

from analysis.marker import marker_effect, marker_summary, marker_timing
from analysis.openings import first_moves_sql, opening_table
from analysis.records import connect, read_table
from analysis.synthetic import synthetic_league, write_league
from azul_cli.main import app
from records.columns import SCHEMAS
from tournament.config import parse_config
from tournament.runner import run_league

runner = CliRunner()


def write_run(run_dir: Path, tables: dict[str, list[dict]], part: str = "part-000001.parquet",
              run_id: str = "r") -> Path:
    """Rows (dicts; missing columns are null) as one part of each table, in the record schemas."""
    for name, rows in tables.items():
        (run_dir / name).mkdir(parents=True, exist_ok=True)
        rows = [{"run_id": run_id, **row} for row in rows]
        pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMAS[name]), run_dir / name / part)
    return run_dir


def move(game, ply, rnd, seat, bot, source, taken, line, to_floor=0, marker=False):
    return {"game_id": game, "ply": ply, "round": rnd, "seat": seat, "bot": bot,
            "source": source, "factory": 1 if source == "factory" else None, "color": "B",
            "taken": taken, "line": line, "to_floor": to_floor, "took_marker": marker}


def game(gid, deal=0, players=2, arrangement=0):
    return {"game_id": gid, "num_players": players, "termination": "normal", "table": 0,
            "deal": deal, "arrangement": arrangement, "deal_seed": deal}


def result(gid, seat, bot, score, rank):
    return {"game_id": gid, "seat": seat, "bot": bot, "score": score, "rank": rank,
            "is_winner": rank == 1}


def rnd(gid, r, seat, opener, wall):
    return {"game_id": gid, "round": r, "seat": seat, "opener": opener, "wall_points": wall,
            "floor_penalty": 0, "score_after": 0}


# Three games of A against B. g1: A (seat 0) opens from a factory (2 tiles to line 3) and wins;
# g2: B opens the same way and wins; g3: A opens so again and they share first place.
KNOWN = {
    "games": [game("g1"), game("g2", 1), game("g3", 2)],
    "results": [result("g1", 0, "A", 40, 1), result("g1", 1, "B", 20, 2),
                result("g2", 0, "B", 30, 1), result("g2", 1, "A", 10, 2),
                result("g3", 0, "A", 25, 1), result("g3", 1, "B", 25, 1)],
    "moves": [
        move("g1", 1, 1, 0, "A", "factory", 2, 3), move("g1", 2, 1, 1, "B", "center", 1, None, 1, True),
        move("g1", 3, 1, 0, "A", "factory", 4, 4), move("g1", 4, 1, 1, "B", "factory", 1, 2),
        # round 2: B opens (it holds the marker); A takes the marker at the 4th draft ply with
        # three tiles already on its floor
        move("g1", 5, 2, 1, "B", "factory", 3, 4), move("g1", 6, 2, 0, "A", "factory", 3, None, 3),
        move("g1", 7, 2, 1, "B", "factory", 1, 1), move("g1", 8, 2, 0, "A", "center", 2, 2, 0, True),
        move("g2", 1, 1, 0, "B", "factory", 2, 3), move("g2", 2, 1, 1, "A", "factory", 1, 1),
        move("g2", 3, 1, 0, "B", "center", 3, 5, 0, True),
        move("g3", 1, 1, 0, "A", "factory", 2, 3), move("g3", 2, 1, 1, "B", "factory", 1, 1),
        move("g3", 3, 1, 0, "A", "center", 7, None, 7, True),
    ],
    "rounds": [rnd("g1", 1, 0, 0, 3), rnd("g1", 1, 1, 0, 1), rnd("g1", 2, 0, 1, 4),
               rnd("g1", 2, 1, 1, 2), rnd("g2", 1, 0, 0, 5), rnd("g2", 1, 1, 0, 2),
               rnd("g3", 1, 0, 0, 1), rnd("g3", 1, 1, 0, 1)],
}


@pytest.fixture()
def known(tmp_path) -> Path:
    return write_run(tmp_path / "known", KNOWN)


def row(frame: pl.DataFrame, **where) -> dict:
    rows = frame.filter(**where).to_dicts()
    assert len(rows) == 1, rows
    return rows[0]


def test_game_openings_on_known_games(known):
    with connect(known) as con:
        table = opening_table(con)
    assert table["n"].sum() == 6  # one opening per seat and game
    a = row(table, bot="A", opened=True)
    assert (a["source"], a["taken"], a["line"], a["n"], a["wins"], a["shared"]) == \
        ("factory", 2, 3, 2, 1, 1)
    assert a["win_rate"] == pytest.approx(0.75)
    assert a["mean_score"] == pytest.approx(32.5)
    assert a["score_low"] < 32.5 < a["score_high"]
    b_centre = row(table, bot="B", source="centre")
    assert (b_centre["taken"], b_centre["line"], b_centre["n"], b_centre["win_rate"]) == (1, 0, 1, 0.0)
    assert math.isnan(b_centre["score_low"]) or b_centre["score_low"] == b_centre["mean_score"]
    b_open = row(table, bot="B", opened=True)
    assert (b_open["n"], b_open["wins"], b_open["low"] > 0) == (1, 1, True)
    # the most played opening comes first for each bot
    assert table.filter(bot="A")["n"].to_list()[0] == 2
    with connect(known) as con:
        assert opening_table(con, min_games=2)["n"].to_list() == [2]


def test_openings_of_one_deal_count_as_one(tmp_path, known):
    """A's opening (factory, 2 tiles, line 3, as the opener) in g1 and g3: two deals, two
    openings; put g3 in g1's deal (another seat arrangement) and they share its luck: the
    interval is that of one opening scoring 3/4."""
    from analysis.stats import wilson

    with connect(known) as con:
        apart = row(opening_table(con), bot="A", opened=True)
    assert (apart["low"], apart["high"]) == pytest.approx(wilson(1.5, 2))
    same = dict(KNOWN, games=[game("g1"), game("g2", 1), game("g3", 0, arrangement=1)])
    with connect(write_run(tmp_path / "same", same)) as con:
        together = row(opening_table(con), bot="A", opened=True)
    assert together["win_rate"] == apart["win_rate"] == pytest.approx(0.75)
    assert (together["low"], together["high"]) == pytest.approx(wilson(0.75, 1))


def test_round_openings_mark_the_opener(known):
    with connect(known) as con:
        table = opening_table(con, scope="round")
        firsts = pl.from_arrow(con.sql(first_moves_sql("round")).to_arrow_table())
    assert table["n"].sum() == 8  # 4 seat-rounds in g1, 2 in g2 and g3
    round2 = firsts.filter(round=2).sort("seat").to_dicts()  # only g1 has a round 2
    assert [(r["seat"], r["source"], r["taken"], r["line"], r["opened"]) for r in round2] == \
        [(0, "factory", 3, 0, False), (1, "factory", 3, 4, True)]
    assert row(table, bot="A", opened=False, line=0)["n"] == 1


def test_marker_summary_on_known_games(known):
    with connect(known) as con:
        table = marker_summary(con)
        timing = marker_timing(con)
    a, b = row(table, bot="A"), row(table, bot="B")
    assert (a["rounds"], a["takes"], b["rounds"], b["takes"]) == (4, 2, 4, 2)
    assert a["take_rate"] == 0.5 and a["low"] < 0.5 < a["high"]
    # A: g1 round 2 at draft ply 4 (3 tiles on its floor: slot 4 costs 2), g3 round 1 at ply 3
    # with 7 tiles sent to the floor (full: the marker costs nothing)
    assert a["mean_ply"] == pytest.approx(3.5)
    assert a["mean_floor_cost"] == pytest.approx(1.0)
    # B: g1 round 1 at ply 2 (1 floor tile: 2 pieces cost 2, 1 cost 1), g2 round 1 at ply 3
    assert b["mean_ply"] == pytest.approx(2.5)
    assert b["mean_floor_cost"] == pytest.approx(1.0)
    # only B's take in g1 is followed by a round: B opened it, with 2 wall points to A's 4
    assert (b["next_rounds"], b["opened_next"], a["next_rounds"]) == (1, 1, 0)
    assert b["open_rate"] == 0.5 and b["next_edge"] == pytest.approx(-2.0)
    assert a["open_rate"] == 0.0 and a["next_edge"] is None
    assert timing.to_dicts() == [
        {"num_players": 2, "ply_in_round": 2, "takes": 1, "share": 0.25},
        {"num_players": 2, "ply_in_round": 3, "takes": 2, "share": 0.5},
        {"num_players": 2, "ply_in_round": 4, "takes": 1, "share": 0.25}]


def confounded_league(run_dir: Path, effect: float, deals: int = 6000, seed: int = 0) -> Path:
    """2-player one-round games of S (strong) against W, each deal played in both seatings.

    S takes the marker 80% of the time, so taking it goes with winning even when it does not
    help. The seat that takes it wins with log-odds ``effect`` more than otherwise: seat 0 wins
    with probability expit(effect * (took_0 - 1/2) + strength_0 - strength_1 + 0.2), which is
    exactly the per-row model with ``effect`` as the coefficient of taking the marker.
    """
    rng = np.random.default_rng(seed)
    strength = {"S": 0.6, "W": -0.6}
    tables = {name: [] for name in ("games", "results", "moves", "rounds")}
    for d in range(deals):
        for arr, bots in enumerate((("S", "W"), ("W", "S"))):
            gid = f"d{d}-a{arr}"
            taker = bots.index("S") if rng.random() < 0.8 else bots.index("W")
            logit = (effect * ((taker == 0) - 0.5) + strength[bots[0]] - strength[bots[1]] + 0.2)
            winner = 0 if rng.random() < 1 / (1 + math.exp(-logit)) else 1
            tables["games"].append(game(gid, d, arrangement=arr))
            for seat in (0, 1):
                tables["results"].append(result(gid, seat, bots[seat], 30 if seat == winner else 20,
                                                1 if seat == winner else 2))
                tables["rounds"].append(rnd(gid, 1, seat, 0, 0))
            tables["moves"] += [move(gid, 1, 1, 0, bots[0], "factory", 2, 2),
                                move(gid, 2, 1, 1, bots[1], "factory", 2, 2),
                                move(gid, 3, 1, taker, bots[taker], "center", 3, 3, 0, True)]
    return write_run(run_dir, tables)


@pytest.mark.parametrize("effect", [0.0, 0.5])
def test_marker_effect_recovers_a_planted_effect_despite_confounding(tmp_path, effect):
    run = confounded_league(tmp_path / "conf", effect)
    with connect(run) as con:
        fit = marker_effect(con)
    r = fit.to_dicts()[0]
    assert (r["num_players"], r["rows"], r["games"], r["deals"]) == (2, 24000, 12000, 6000)
    assert r["low"] < effect < r["high"]
    assert r["high"] - r["low"] < 0.4  # precise enough that the check above means something
    assert r["odds_ratio"] == pytest.approx(math.exp(r["estimate"]))
    assert r["me_low"] < r["marginal_effect"] < r["me_high"]
    # the raw difference of win rates is inflated by the strong bot taking the marker more often
    assert r["raw_diff"] > r["me_high"] + 0.1
    # the true average change in win probability: rows are S or W in seat 0 or 1, equally often,
    # with log-odds c +- effect / 2 (c: +-1.2 for the strength gap, +-0.2 for seat 0's edge)
    def expit(x: float) -> float:
        return 1 / (1 + math.exp(-x))

    truth = np.mean([expit(c + effect / 2) - expit(c - effect / 2) for c in (1.4, -1.0, 1.0, -1.4)])
    assert r["me_low"] < truth < r["me_high"]


@pytest.fixture(scope="module")
def real_runs(tmp_path_factory) -> list[Path]:
    tmp = tmp_path_factory.mktemp("leagues")
    runs = []
    for players, bots, deals in ((2, ["random", "greedy"], 6),
                                 (3, ["random", "greedy", {"name": "r2", "type": "random"}], 3)):
        data = league(tmp, bots, name=f"p{players}", players=players, deals=deals)
        runs.append(run_league(parse_config(data), progress=False).run_dir)
    return runs


def test_a_real_league_is_consistent_with_its_records(real_runs):
    games = read_table(real_runs, "games")
    moves = read_table(real_runs, "moves")
    rounds = read_table(real_runs, "rounds")
    with connect(real_runs) as con:
        per_game = pl.from_arrow(con.sql(f"""
            SELECT g, any_value(num_players) AS num_players, count(*) AS len,
                   count(DISTINCT seat) AS seats, count(*) FILTER (WHERE opened) AS opened
            FROM ({first_moves_sql("game")}) JOIN (SELECT hash(run_id, game_id) AS g, num_players
                                                     FROM games) USING (g)
            GROUP BY g""").to_arrow_table())
        openings = opening_table(con)
        round_openings = opening_table(con, scope="round")
        summary = marker_summary(con)
        timing = marker_timing(con)
        effect = marker_effect(con)
    key = ["run_id", "game_id"]  # the two runs use the same game ids
    # every game contributes exactly one opening per seat, the first mover's one "opened"
    check = per_game
    assert check.height == games.height
    assert (check["len"] == check["num_players"]).all() and (check["seats"] == check["len"]).all()
    assert (check["opened"] == 1).all()
    assert openings["n"].sum() == (games["num_players"].sum())
    drafted = moves.filter(pl.col("source").is_not_null())
    assert round_openings["n"].sum() == drafted.select(*key, "round", "seat").unique().height
    # one marker take per round in which someone took from the centre
    centre_rounds = drafted.filter(source="center").select(*key, "round").unique().height
    assert summary["takes"].sum() == centre_rounds == timing["takes"].sum()
    assert summary["rounds"].sum() == rounds.height
    # the holder always opens the next round, when there is one
    assert (summary["opened_next"] == summary["next_rounds"]).all()
    assert summary["mean_floor_cost"].is_between(0, 3).all()
    assert timing.group_by("num_players").agg(pl.col("share").sum())["share"].to_list() == \
        pytest.approx([1.0, 1.0])
    assert sorted(effect["num_players"].to_list()) == [2, 3]
    assert effect["rows"].sum() == rounds.height and effect["games"].sum() == games.height


def test_connect_skips_orphans_and_reads_several_folders(tmp_path, known):
    other = write_run(tmp_path / "other", KNOWN, run_id="o")
    # an orphan part (a driver killed before its games part) and a temporary file
    write_run(other, {"moves": [move("g9", 1, 1, 0, "A", "factory", 1, 1)]},
              part="part-000002.parquet")
    (other / "moves" / ".part-000003.parquet.tmp").write_bytes(b"not parquet")
    with connect([known, other]) as con:
        assert con.execute("SELECT count(*) FROM moves").fetchone()[0] == 2 * len(KNOWN["moves"])
        assert con.execute("SELECT count(DISTINCT run_id) FROM games").fetchone()[0] == 2
        assert opening_table(con)["n"].sum() == 12
    # parts not named by the league: every row is checked against games
    loose = write_run(tmp_path / "loose", KNOWN, part="all.parquet")
    write_run(loose, {"moves": [move("g9", 1, 1, 0, "A", "factory", 1, 1)]}, part="more.parquet")
    assert read_table(loose, "moves").height == len(KNOWN["moves"])


def test_openings_command_formats(known):
    result = runner.invoke(app, ["openings", str(known), "--format", "csv"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert sum(int(r["n"]) for r in rows) == 6 and rows[0]["source"] in ("factory", "centre")
    result = runner.invoke(app, ["openings", str(known), "--scope", "round", "-f", "json",
                                 "--min-games", "2"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["scope"] == "round" and all(r["n"] >= 2 for r in doc["rows"])
    result = runner.invoke(app, ["openings", str(known)])
    assert result.exit_code == 0 and "factory" in result.output and "centre" in result.output


def test_marker_command_formats(known):
    result = runner.invoke(app, ["marker", str(known), "-f", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert set(doc) == {"summary", "timing", "effect"}
    assert sum(r["takes"] for r in doc["summary"]) == 4
    result = runner.invoke(app, ["marker", str(known), "-f", "csv", "--what", "timing"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "num_players,ply_in_round,takes,share"
    result = runner.invoke(app, ["marker", str(known), "-f", "csv"])
    assert [line for line in result.output.splitlines() if line.startswith("#")] == \
        ["# summary", "# timing", "# effect"]
    result = runner.invoke(app, ["marker", str(known)])
    assert result.exit_code == 0 and "cluster-robust" in result.output


def test_commands_fail_with_one_clear_line(tmp_path, known):
    no_moves = write_league(synthetic_league([("x", 0.0), ("y", 0.0)], 2), tmp_path / "elo-only")
    cases = [
        (["marker", str(no_moves)], f"error: {no_moves}: no moves records (no moves/*.parquet)"),
        (["openings", str(tmp_path / "none")], f"error: {tmp_path / 'none'}: not a folder"),
        (["openings", str(known), "--min-games", "0"], "error: --min-games must be at least 1, not 0"),
    ]
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 1, result.output
        assert result.output.strip().splitlines() == [message]
    with connect(known) as con, pytest.raises(ValueError, match="unknown scope 'move'"):
        opening_table(con, scope="move")
