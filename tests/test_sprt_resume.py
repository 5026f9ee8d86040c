"""``azul sprt --resume`` and ``--fresh``: a resumed test is the same test (a changed setting is
refused by name, with its old and new values, and nothing in the folder changes), settings not
restated come from the folder (docs/cli.md's example), the limit may only be raised, and
``--fresh`` starts over as ``azul league run --fresh`` does."""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from azul_cli.main import app
from records.read import done_game_ids

runner = CliRunner()
DOCS = Path(__file__).resolve().parents[1] / "docs"
BASE = ["sprt", "--bot", "greedy", "--bot", "random", "--workers", "0", "--no-mlflow"]


def _json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture
def stopped(tmp_path):
    """A test of 6 pairs, elo1 20, seed 4: undecided (greedy sweeps random, but 6 pairs are few)."""
    out = _json(runner.invoke(app, BASE + ["--elo1", "20", "--max-pairs", "6", "--seed", "4", "--out", str(tmp_path),
                                           "-f", "json"]))
    assert out["pairs"] == 6
    return tmp_path


@pytest.mark.parametrize("args,words", [
    (["--seed", "5"], "--seed is 5 but the test was started with 4"),
    (["--variant", "gray"], "--variant is gray but the test was started with colored"),
    (["--bot-seed", "1", "--bot-seed", "2"], "--bot-seed is [1, 2] but the test was started with ["),
    (["--elo1", "30"], "--elo1 is 30 but the test was started with 20"),
    (["--model", "logistic"], "--model is logistic but the test was started with normalized"),
    (["--max-pairs", "3"], "--max-pairs is 3 but the test was started with 6: a test's limit can only be raised"),
])
def test_a_changed_test_is_refused_by_name_and_the_folder_is_untouched(stopped, args, words):
    run_dir = stopped / "sprt"
    before = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()}
    result = runner.invoke(app, BASE + ["--out", str(stopped), "--resume", *args])
    assert result.exit_code == 1 and result.output.count("\n") <= 2, result.output
    assert words in result.output, result.output
    assert "--fresh starts the test over" in result.output
    assert {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()} == before


def test_resume_takes_the_settings_it_is_not_given_from_the_folder(stopped):
    """Neither elo1 nor the seed nor the bots restated: the test's own, raised to 10 pairs."""
    out = _json(runner.invoke(app, ["sprt", "--out", str(stopped), "--resume", "--max-pairs", "10", "--workers", "0",
                                    "--no-mlflow", "-f", "json"]))
    assert out["elo1"] == 20 and out["new"] == "greedy" and out["max_pairs"] == 10
    assert len(done_game_ids(stopped / "sprt")) == 2 * (out["pairs"] + out["pairs_after"]) > 12
    assert yaml.safe_load((stopped / "sprt" / "config.yaml").read_text())["seed"] == 4


def test_the_resume_example_of_cli_md_works(tmp_path, monkeypatch):
    """docs/cli.md's ``azul sprt ... --resume`` line, after a test run with other settings than
    the defaults (elo1 20, 8 pairs), finishes that test."""
    line = next(x for x in (DOCS / "cli.md").read_text().splitlines()
                if x.startswith("$ azul sprt") and x.endswith("--resume"))
    args = shlex.split(line[2:])[1:]
    monkeypatch.chdir(tmp_path)
    first = _json(runner.invoke(app, args[:-1] + ["--elo1", "20", "--max-pairs", "8", "--workers", "0",
                                                  "--no-mlflow", "-f", "json"]))
    again = _json(runner.invoke(app, args + ["--workers", "0", "--no-mlflow", "-f", "json"]))
    assert again["verdict"] == first["verdict"] and again["elo1"] == 20 and again["pairs"] == first["pairs"]


def test_fresh_starts_the_test_over(stopped):
    run_dir = stopped / "sprt"
    old_id = json.loads((run_dir / "run.json").read_text())["run_id"]
    out = _json(runner.invoke(app, BASE + ["--out", str(stopped), "--fresh", "--elo1", "30", "--max-pairs", "3",
                                           "-f", "json"]))
    assert out["elo1"] == 30 and out["pairs"] == 3 and len(done_game_ids(run_dir)) == 6
    assert json.loads((run_dir / "run.json").read_text())["run_id"] != old_id
    both = runner.invoke(app, BASE + ["--out", str(stopped), "--fresh", "--resume"])
    assert both.exit_code == 1 and "choose one" in both.output


def test_without_resume_the_refusal_names_resume_and_fresh(stopped):
    result = runner.invoke(app, BASE + ["--out", str(stopped), "--elo1", "20", "--max-pairs", "6", "--seed", "4"])
    assert result.exit_code == 1 and re.search(r"--resume to finish it, --fresh to start it over", result.output)


def test_an_out_that_cannot_be_written_is_one_line(tmp_path):
    (tmp_path / "blocked").write_text("a file where the folder should be")
    result = runner.invoke(app, BASE + ["--out", str(tmp_path / "blocked")])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.output
    assert result.stderr.startswith(f"error: {tmp_path / 'blocked'}") and "Traceback" not in result.output
