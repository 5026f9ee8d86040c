"""``azul replay`` in the terminal with a run's review of the game (analysis.review_read.game_review):
each move's class, win probability and points lost and the best move, the marks of the move list,
each seat's accuracy; a game without a review, and ``--no-review``, print as before."""
from __future__ import annotations

import io
import re

import polars as pl
import pytest
from rich.console import Console
from test_league_support import league
from typer.testing import CliRunner

from analysis.review_read import MARKS, game_review
from analysis.review_show import game_accuracy, reviews_of
from azul_cli.main import app
from azul_cli.replay import browse
from kinds.review import review_run
from records.folder import save_run_id
from records.store import RunStore
from tournament import read_table
from tournament.config import parse_config
from tournament.replay import replay_steps
from tournament.runner import run_league

runner = CliRunner()
ODD = "<b>&\"x'"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Random (named ODD) against greedy, four games, the first three reviewed; the run id pinned,
    so the review (seeded from the run) is the same every time."""
    tmp = tmp_path_factory.mktemp("review-replay")
    (tmp / "rp").mkdir()
    save_run_id(tmp / "rp", "rp-pinned")
    data = league(tmp, [{"name": ODD, "type": "random"}, "greedy"], name="rp", deals=2, flush_seconds=0)
    run_dir = run_league(parse_config(data), progress=False).run_dir
    ids = sorted(read_table(run_dir, "games", ["game_id"]).column("game_id").to_pylist())
    assert len(ids) == 4
    review_run(str(run_dir), ids[:3], workers=0)
    return run_dir, ids


def step_of(run_dir, gid: str, ply: int) -> int:
    """The 1-based step that plays ``ply``."""
    return next(s.index for s in replay_steps(run_dir, gid).steps if s.move is not None and s.ply == ply) + 1


def replay(*args) -> str:
    result = runner.invoke(app, ["replay", *map(str, args), "--plain"])
    assert result.exit_code == 0, result.output
    return result.stdout


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_a_blunder_shows_its_mark_and_the_best_move(run):
    run_dir, _ids = run
    rows = reviews_of(run_dir)
    worst = rows.sort("win_loss", descending=True).row(0, named=True)
    assert worst["class"] == "blunder" and worst["move"] != worst["best"]
    gid, ply = worst["game_id"], worst["ply"]
    text = flat(replay(run_dir, gid, "--step", step_of(run_dir, gid, ply)))
    assert (f"review: blunder ?? | win {worst['win_before']:.0%} before, {worst['win_loss']:.1%} lost | "
            f"{worst['points_loss']:+.1f} points lost | best {worst['best']}, line {worst['pv']}") in text, text
    assert f" {ply}.{worst['move']}?? " in text + " "
    # every reviewed move of the game marked by its class in the move list, the others bare
    listed = re.findall(r" (\d+)\.([A-Z0-9@]{3})(\?\?|\?!|\?)?", text.split("round 1:")[1])
    game = rows.filter(pl.col("game_id") == gid)
    assert {int(p): mark for p, _, mark in listed} == {
        r["ply"]: MARKS.get(r["class"], "") for r in game.iter_rows(named=True)}
    # each seat's accuracy for the game after the result line, and the analyser
    seats = ", ".join(f"seat {r['seat']} {r['bot']} {r['accuracy']:.1f} ({r['blunders']} "
                      f"blunder{'' if r['blunders'] == 1 else 's'})"
                      for r in game_accuracy(game).iter_rows(named=True))
    assert f"accuracy (0 to 100): {seats}" in text
    assert f"review by {flat(game['analyser'][0])}" in text
    assert text.index("result (normal):") < text.index("accuracy (0 to 100):")


def test_the_best_move_shows_no_alternative(run):
    run_dir, _ids = run
    best = reviews_of(run_dir).filter(pl.col("class") == "best").row(0, named=True)
    text = flat(replay(run_dir, best["game_id"], "--step", step_of(run_dir, best["game_id"], best["ply"])))
    assert f"review: best | win {best['win_before']:.0%} before, 0.0% lost | " in text
    assert "| best " not in text and ", line " not in text


def test_an_unreviewed_game_and_no_review_print_as_before(run):
    run_dir, ids = run
    plain = replay(run_dir, ids[3], "--step", 10)
    assert "review" not in plain and "accuracy" not in plain and "?" not in plain
    assert plain == replay(run_dir, ids[3], "--step", 10, "--no-review")
    assert game_review(run_dir, ids[3]) is None
    # --no-review on a reviewed game: the same text less the review's lines and marks
    shown = replay(run_dir, ids[0], "--step", 10)
    hidden = replay(run_dir, ids[0], "--step", 10, "--no-review")
    assert "review:" in shown and "review" not in hidden and "?" not in hidden
    stripped = re.sub(r"review: .*?\n(?=Azul,)", "", shown, flags=re.DOTALL)
    stripped = re.sub(r"accuracy \(0 to 100\):.*", "", stripped, flags=re.DOTALL)
    assert flat(re.sub(r"\?\?|\?!|\?", "", stripped)).strip() == flat(hidden).strip()


def test_stepping_shows_the_review_of_each_move(run):
    run_dir, ids = run
    game = replay_steps(run_dir, ids[0])
    review = game_review(run_dir, ids[0])
    out = Console(file=io.StringIO(), color_system=None, width=200)
    commands = iter(["n", "n", "q"])
    assert browse(game, out, lambda prompt: next(commands), review=review) == 2
    text = out.file.getvalue()
    for ply in (1, 2):
        row = review.moves[ply]
        assert f"review: {row['class']}" in text.split(f"ply {ply}:")[1].split("\n")[1]
    assert text.count("review: ") == 2  # none for the deal


def test_a_damaged_review_is_a_warning(run, tmp_path):
    import shutil

    run_dir, ids = run
    copy = tmp_path / "rp"
    shutil.copytree(run_dir, copy)
    for part in RunStore(copy).part_files("reviews"):
        part.write_bytes(b"PAR1 not a parquet file")
    result = runner.invoke(app, ["replay", str(copy), ids[0], "--step", "10", "--plain"])
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(f"warning: the review of {ids[0]} is left out: ") and "damaged" in result.stderr
    assert result.stdout == replay(run_dir, ids[0], "--step", 10, "--no-review")
