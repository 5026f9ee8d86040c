"""A run folder that was copied or renamed is finished by the command its repair and status print
(issue 42): the command names the folder itself (``--out`` and ``--name``), never the ``name:``
inside its config, so pasted it finishes exactly that folder; the copy keeps its ``run_id``, and
readers given both folders say so instead of counting the games twice."""
from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from azul_cli.main import app
from records.names import RUN_FILE
from tournament.config import load_config
from tournament.runner import run_league

runner = CliRunner()


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A finished league of 24 games, its config in its own folder."""
    tmp = tmp_path_factory.mktemp("moves")
    config = tmp / "configs" / "small.yaml"
    config.parent.mkdir()
    config.write_text(yaml.safe_dump({
        "name": "small", "players": 2, "deals": 4, "seed": 5, "out": str(tmp / "runs"), "batch_games": 4,
        "flush_seconds": 0, "ray": {"workers": 0}, "mlflow": {"enabled": False},
        "bots": ["random", "greedy", "heuristic"]}))
    summary = run_league(load_config(config), progress=False)
    assert summary.complete and summary.recorded == 24
    return Path(summary.run_dir)


def _games(run: Path) -> int:
    return len(list((run / "games").glob("*.parquet")))


def _printed_command(output: str) -> list[str]:
    line = next(line for line in output.splitlines() if "with: azul " in line)
    return shlex.split(line.split("with: ", 1)[1])


@pytest.mark.parametrize("how", ["copied", "renamed"])
def test_a_moved_run_is_finished_by_the_command_its_repair_prints(finished, tmp_path, how):
    source = tmp_path / "runs" / "small"
    shutil.copytree(finished, source)
    moved = tmp_path / "elsewhere" / "dmg"
    moved.parent.mkdir()
    if how == "copied":
        shutil.copytree(source, moved)
    else:
        source.rename(moved)
    part = sorted((moved / "games").glob("part-*.parquet"))[1]
    part.write_bytes(b"not a parquet file" * 10)  # damage: its games are no longer recorded

    repaired = runner.invoke(app, ["league", "repair", str(moved)])
    assert repaired.exit_code == 0, repaired.output
    args = _printed_command(repaired.output)
    assert args[:3] == ["azul", "league", "run"] and args[args.index("--name") + 1] == "dmg"
    assert args[args.index("--out") + 1] == str(moved.parent)
    before = {p.name: p.stat().st_mtime_ns for p in (source / "games").glob("*")} if source.exists() else {}

    done = runner.invoke(app, args[1:] + ["--no-mlflow"])
    assert done.exit_code == 0, done.output
    status = runner.invoke(app, ["league", "status", str(moved)])
    assert "24 of 24 games recorded" in status.output.replace(",", ""), status.output
    if source.exists():  # the source was left as it was
        assert {p.name: p.stat().st_mtime_ns for p in (source / "games").glob("*")} == before
    assert not (moved.parent / "small").exists()  # nothing started under the config's name
    run_id = json.loads((finished / RUN_FILE).read_text())["run_id"]
    assert json.loads((moved / RUN_FILE).read_text())["run_id"] == run_id  # the copy keeps its run_id


def test_readers_given_a_run_and_its_copy_say_so(finished, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(finished, copy)
    for command in (["elo", str(finished), str(copy)], ["report", str(finished), str(copy)],
                    ["ratings", "add", str(tmp_path / "list"), str(finished), str(copy)]):
        shown = runner.invoke(app, command)
        text = " ".join(shown.output.split())
        assert shown.exit_code != 0 and ("hold the same run" in text or "given twice" in text), shown.output
        assert "run_id" in text or "run small-" in text  # the run named, not the games counted twice
        assert "Traceback" not in shown.output
