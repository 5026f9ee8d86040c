"""The synthetic run folders of analysis/synthetic_records.py, and the marimo notebooks run headless on one."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest
from polars.testing import assert_frame_equal

from analysis import fit_elo, read_table
from analysis.marker import marker_effect, marker_summary
from analysis.openings import opening_table
from analysis.ratings import rate_by_players
from analysis.records import connect, read_records
from analysis.stats import seat_advantage
from analysis.synthetic_records import write_synthetic_run
from records.columns import SCHEMAS, TABLES
from records.store import open_store
from s3_server import s3_env, s3_server  # noqa: F401 (fixtures: s3_run uses them)

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "analysis" / "notebooks"


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    return write_synthetic_run(tmp_path_factory.mktemp("nb") / "small", 400, part_games=100, seed=5)


@pytest.fixture(scope="module")
def tables(run) -> dict[str, pl.DataFrame]:
    return {name: read_table(run, name) for name in TABLES}


# ---------------------------------------------------------------- write_synthetic_run
def test_parts_have_the_league_schemas(run):
    for name in TABLES:
        parts = sorted(p.name for p in (run / name).iterdir())
        assert parts == [f"part-{i:06d}.parquet" for i in (1, 2, 3, 4)], name
        for part in parts:
            assert pq.read_schema(run / name / part).equals(SCHEMAS[name], check_metadata=False)


def test_games_and_moves_agree(tables):
    games, moves, rounds = tables["games"], tables["moves"], tables["rounds"]
    assert games.height == 400 and games["game_id"].n_unique() == 400
    per_game = moves.group_by("game_id").agg(pl.len().alias("n"), pl.col("round").max().alias("r"),
                                             pl.col("ply").min().alias("first"),
                                             pl.col("ply").max().alias("last"))
    both = games.join(per_game, on="game_id")
    assert (both["plies"] == both["n"]).all() and (both["plies"] == both["last"]).all()
    assert (both["first"] == 1).all() and (both["rounds"] == both["r"]).all()
    assert both["rounds"].is_between(5, 7).all() and 55 <= both["plies"].mean() <= 80
    assert (rounds.group_by("game_id").len().join(games, on="game_id")
            .select((pl.col("len") == 2 * pl.col("rounds")).all()).item())
    # each deal is played twice with the seats swapped, on the same deal
    deals = games.group_by("table", "deal").agg(pl.len(), pl.col("deal_seed").n_unique().alias("seeds"),
                                                pl.col("arrangement").sort())
    assert (deals["len"] == 2).all() and (deals["seeds"] == 1).all()


def test_marker_and_openers(tables):
    moves = tables["moves"].sort("game_id", "ply")
    rounds = tables["rounds"]
    per_round = moves.group_by("game_id", "round").agg(
        pl.col("took_marker").sum().alias("takes"),
        pl.col("ply").filter(pl.col("took_marker")).first().alias("marker_ply"),
        pl.col("seat").filter(pl.col("took_marker")).first().alias("taker"),
        pl.col("ply").min().alias("first_ply"),
        pl.col("seat").sort_by("ply").first().alias("first_seat"),
        pl.col("ply").filter(pl.col("source") == "center").min().alias("first_centre"),
        (pl.col("seat").sort_by("ply").diff().abs().drop_nulls() == 1).all().alias("alternates"))
    assert (per_round["takes"] == 1).all()
    assert (per_round["marker_ply"] > per_round["first_ply"]).all()
    assert (per_round["first_centre"] == per_round["marker_ply"]).all()
    assert per_round["alternates"].all()
    openers = rounds.filter(pl.col("seat") == 0).select("game_id", "round", "opener")
    chk = per_round.join(openers, on=["game_id", "round"])
    assert (chk["first_seat"] == chk["opener"]).all()
    assert (chk.filter(pl.col("round") == 1)["opener"] == 0).all()
    nxt = chk.select("game_id", (pl.col("round") - 1).alias("round"), pl.col("opener").alias("next"))
    prev = chk.join(nxt, on=["game_id", "round"])
    assert prev.height > 0 and (prev["taker"] == prev["next"]).all()
    # the notation matches the columns
    made = (pl.when(pl.col("source") == "center").then(pl.lit("C"))
            .otherwise(pl.col("factory").cast(pl.String))
            + pl.col("color") + pl.col("line").cast(pl.String).fill_null("F"))
    assert (moves["move"] == moves.select(made).to_series()).all()
    assert ((moves["line"].is_null()) == (moves["to_floor"] == moves["taken"])).mean() > 0.9


def test_scores_add_up(tables):
    rounds = tables["rounds"].sort("game_id", "seat", "round")
    results = tables["results"]
    chain = rounds.with_columns(pl.col("score_after").shift(1, fill_value=0).over("game_id", "seat")
                                .alias("before"))
    last = chain.group_by("game_id", "seat").agg(pl.col("round").max().alias("last"))
    chain = chain.join(last, on=["game_id", "seat"]).join(results, on=["game_id", "seat"])
    middle = chain.filter(pl.col("round") < pl.col("last"))
    assert (middle["before"] + middle["wall_points"] - middle["floor_penalty"]
            == middle["score_after"]).all()
    end = chain.filter(pl.col("round") == pl.col("last"))
    assert (end["before"] + end["wall_points"] - end["floor_penalty"] + end["bonus_points"]
            == end["score_after"]).all()
    assert (end["score_after"] == end["score"]).all() and (chain["score_after"] >= 0).all()
    totals = rounds.group_by("game_id", "seat").agg(pl.col("floor_penalty").sum())
    assert (results.join(totals, on=["game_id", "seat"])
            .select((pl.col("floor_penalty") == pl.col("floor_penalty_total")).all()).item())
    assert (results["bonus_points"] == 2 * results["complete_rows"] + 7 * results["complete_columns"]
            + 10 * results["complete_colors"]).all()
    wide = results.pivot("seat", index="game_id", values=["score", "rank"])
    assert ((wide["score_0"] > wide["score_1"]) == (wide["rank_0"] == 1)).all()
    assert ((wide["rank_0"] == 1) != (wide["rank_1"] == 1)).all()
    assert (results["is_winner"] == (results["rank"] == 1)).all()


def test_known_strengths_are_recovered(tmp_path):
    truth = {"a": 200.0, "b": 0.0, "c": -200.0}
    run = write_synthetic_run(tmp_path / "fit", 6000, strengths=list(truth.items()), edge=60.0,
                              seed=2, part_games=2000)
    records = read_records(run)
    fit = fit_elo(records["results"], records["games"], bootstrap=0)
    got = dict(zip(fit.table["bot"], fit.table["rating"]))
    assert all(abs(got[b] - truth[b]) < 30 for b in truth), got
    assert 35 < fit.first_move[0] < 85, fit.first_move


def test_bad_arguments(tmp_path, run):
    with pytest.raises(ValueError, match="games must be even"):
        write_synthetic_run(tmp_path / "odd", 301)
    with pytest.raises(ValueError, match="part_games"):
        write_synthetic_run(tmp_path / "odd", 300, part_games=0)
    with pytest.raises(ValueError, match="already holds records"):
        write_synthetic_run(run, 10)
    with pytest.raises(ValueError, match="names must differ"):
        write_synthetic_run(tmp_path / "dup", 10, strengths=[("a", 0.0), ("a", 1.0)])


# ---------------------------------------------------------------- the notebooks
def _notebook(name: str, run_dir: Path | str, monkeypatch) -> tuple[list, dict]:
    """The notebook run headless on ``run_dir`` (a folder or an s3:// URL): its cells' outputs, its names."""
    monkeypatch.setenv("AZUL_RUN_DIR", str(run_dir))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    spec = importlib.util.spec_from_file_location(f"notebook_{name}", NOTEBOOKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.app.run()


def _run_notebook(name: str, run_dir: Path | str, monkeypatch) -> dict:
    return _notebook(name, run_dir, monkeypatch)[1]


def test_ratings_notebook(run, monkeypatch):
    defs = _run_notebook("ratings", run, monkeypatch)
    records = read_records(run)
    fits = rate_by_players(records["results"], records["games"], bootstrap=200, seed=0)
    expected = fits[2].table.select("bot", "games", "rating", "low", "high")
    shown = defs["ratings"]
    assert shown["num_players"].to_list() == [2] * 4
    assert shown.drop("num_players").equals(expected)
    assert defs["fits"][2].superiority.equals(fits[2].superiority)
    firsts = records["results"].filter(pl.col("rank") == 1).group_by("bot").len()
    by_bot = defs["by_bot"].join(firsts, on="bot")
    assert by_bot.height == 4 and (by_bot["firsts"] == by_bot["len"]).all()


def test_strategy_notebook(run, monkeypatch):
    defs = _run_notebook("strategy", run, monkeypatch)
    records = read_records(run)
    seats = seat_advantage(records["results"], records["games"]).filter(pl.col("bot").is_null())
    shown = defs["seats"].sort("seat")
    assert shown["games"].to_list() == seats["games"].to_list() == [400, 400]
    assert np.allclose(shown["win_rate"], seats["win_rate"]) and np.allclose(shown["low"], seats["low"])
    keys = ["num_players", "bot", "opened", "source", "taken", "line"]
    with connect(run) as con:
        expected = opening_table(con, scope="game")
        assert_frame_equal(defs["openings"].sort(keys), expected.sort(keys), check_exact=False)
        assert_frame_equal(defs["marker"], marker_summary(con), check_exact=False)
        effect = marker_effect(con)
    assert expected["n"].sum() == 800  # both seats' first moves of every game
    summary = defs["summary"]
    seat0 = summary.filter(pl.col("measure") == "seat 0 win rate, 2 players")
    assert seat0["value"].item() == pytest.approx(seats["win_rate"][0])
    me = summary.filter(pl.col("measure").str.starts_with("marker effect"))
    assert me["value"].item() == pytest.approx(effect["marginal_effect"].item())


def test_notebook_takes_the_folder_from_the_command_line(run, tmp_path):
    """``marimo export html`` with ``-- --run-dir``: the argument wins over AZUL_RUN_DIR."""
    nowhere = str(tmp_path / "nowhere")
    env = {**os.environ, "AZUL_RUN_DIR": nowhere, "MPLBACKEND": "Agg"}
    records = read_records(run)
    fit = rate_by_players(records["results"], records["games"], bootstrap=200, seed=0)[2]
    top = repr(fit.table["rating"][0])[:8]  # its digits, as the page's table data holds them
    out = tmp_path / "ratings.html"
    notebook = tmp_path / "ratings.py"  # a copy: marimo leaves a session cache beside the notebook
    shutil.copy(NOTEBOOKS / "ratings.py", notebook)
    cmd = [sys.executable, "-m", "marimo", "export", "html", str(notebook), "-o",
           str(out), "--", "--run-dir", str(run)]
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, capture_output=True, timeout=120)
    page = out.read_text()
    assert top in page and str(run) in page and nowhere not in page
    cmd[-1] = nowhere  # a folder without records: the notebook says so and stops
    subprocess.run(cmd, cwd=ROOT, env=env, check=False, capture_output=True, timeout=120)
    page = out.read_text()
    assert top not in page and nowhere in page


# ---------------------------------------------------------------- the notebooks over s3://
@pytest.fixture
def s3_run(run, s3_env, tmp_path, monkeypatch):  # noqa: F811
    """The synthetic run copied part by part into a run on the tests' S3 server (SeaweedFS), as a
    league writes one there (records.s3store: staged, committed, published); its URL."""
    monkeypatch.setenv("AZUL_S3_CACHE", str(tmp_path / "cache"))
    url = f"s3://{s3_env.bucket}/nb-{tmp_path.name[-12:]}/small"
    store = open_store(url)
    for part in sorted(p.name for p in (run / "games").iterdir()):
        store.write_part(part[len("part-"):-len(".parquet")],
                         {name: [pq.read_table(run / name / part)] for name in TABLES})
    return url


def test_both_notebooks_on_an_s3_run_show_the_tables_of_the_same_run_in_a_folder(run, s3_run, monkeypatch):
    for name, frames in (("ratings", ("ratings", "by_bot")), ("strategy", ("seats", "openings", "marker", "summary"))):
        here, there = _run_notebook(name, run, monkeypatch), _run_notebook(name, s3_run, monkeypatch)
        for frame in frames:
            assert there[frame].height > 0, (name, frame)
            assert_frame_equal(there[frame], here[frame], check_exact=False, rel_tol=1e-9), (name, frame)
    assert not Path("s3:").exists()


def test_a_bad_url_or_a_missing_run_on_s3_is_the_notebooks_one_line(s3_run, s3_env, monkeypatch):  # noqa: F811
    missing = s3_run.rsplit("/", 1)[0] + "/nothing-here"
    cases = {"s3://": "<strong>s3://</strong>: bad S3 URL s3://: no bucket",
             missing: f"<strong>{missing}</strong>: {missing}: no game records there",
             f"s3://no-such-bucket-{s3_env.bucket}/r": "no bucket 'no-such-bucket-"}
    for url, said in cases.items():
        for name, last in (("ratings", "ratings"), ("strategy", "summary")):
            outputs, defs = _notebook(name, url, monkeypatch)
            stopped = [o.text for o in outputs if o is not None and "<strong>" in getattr(o, "text", "")]
            assert len(stopped) == 1 and said in stopped[0], (name, url, stopped)
            assert s3_env.endpoint not in stopped[0] and s3_env.secret_key not in stopped[0]
            assert defs.get(last) is None, (name, url)  # the notebook stopped there
