"""``azul train`` at 3 players (kinds/train.py, kinds/train_gate.py): generation 0 fits 3-player
records, a generation plays self-play at 3-player tables and is gated by a league of candidate,
current and a copy of current on shared deals with every seating, rated by Plackett-Luce; an
``azul train`` process killed with SIGKILL in generation 1 (its self-play committed) and resumed
by another (MLflow on, as a user runs it) ends as a run never killed."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from azul_cli.main import app
from learn.ntuple import NTupleModel
from records.parts import committed_parts
from test_league_support import ROOT, league, subprocess_env
from tournament import read_table
from tournament.config import parse_config
from tournament.runner import run_league

# ``azul train`` in a process of its own that holds still in generation 1 once its self-play and
# positions are written (just before the fit), so that the SIGKILL, sent once the self-play's games
# are committed, always lands in the middle of that generation
PAUSED_TRAIN = """
import sys, time
import kinds.train as train
from azul_cli.main import app
fit = train._fit
def paused(c, data, start, store, name, g, parent=None):
    if g == 1:
        time.sleep(600)  # killed here
    return fit(c, data, start, store, name, g, parent)
train._fit = paused
app(["train", sys.argv[1]])
"""


def _config(tmp_path, records, out):
    path = tmp_path / f"{out}.yaml"
    path.write_text(f"""
name: three
players: 3
seed: 6
generations: 1
start: {{records: ["{records}"]}}
selfplay: {{deals: 2, iterations: 6}}
train: {{value: ntuple, lam: 0.5, epochs: 2, batch: 32, lr: 0.002}}
gate: {{max_deals: 2, field: current}}
out: {tmp_path / out}
workers: 0
""", encoding="utf-8")
    return path


def committed_games(run: Path) -> int:
    return read_table(run, "games", ["game_id"]).num_rows if committed_parts(run) else 0


def kill_in_generation_one(path: Path, root: Path, games: int, timeout: float = 120) -> None:
    """Start ``azul train path`` in a process of its own, wait until generation 1's self-play has
    committed its ``games`` (its parts under ``root``), then SIGKILL the process."""
    proc = subprocess.Popen([sys.executable, "-c", PAUSED_TRAIN, str(path)], cwd=ROOT, env=subprocess_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + timeout
    try:
        while committed_games(root / "gen-001" / "selfplay") < games:
            if proc.poll() is not None:
                pytest.fail(f"azul train ended ({proc.returncode}) before its self-play was committed:\n"
                            f"{proc.stdout.read()}")
            if time.monotonic() > deadline:
                pytest.fail(f"generation 1's {games} self-play games not committed in {timeout} s")
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def test_a_3_player_train_runs_gates_by_plackett_luce_is_killed_and_resumes(tmp_path):
    records = parse_config(league(tmp_path, ["greedy", "heuristic", "random"], name="r3", players=3, deals=2,
                                  seed=4))
    assert run_league(records, progress=False).complete
    whole = CliRunner().invoke(app, ["train", str(_config(tmp_path, tmp_path / "r3", "whole"))])
    assert whole.exit_code == 0, whole.output
    assert "gate " in whole.output and "after 2 deals (12 games)" in whole.output

    path = _config(tmp_path, tmp_path / "r3", "killed")
    root = tmp_path / "killed" / "three"
    kill_in_generation_one(path, root, games=2)  # deals 2, one bot: its self tables
    assert len(json.loads((root / "lineage.json").read_text())) == 1      # generation 0 only
    assert not (root / "gen-001" / "candidate.azv").exists() and not (root / "gen-001" / "gate").exists()
    selfplay = {name: read_table(root / "gen-001" / "selfplay", name) for name in ("games", "results", "moves")}
    resumed = subprocess.run([sys.executable, "-m", "azul_cli", "train", str(path), "--resume"], cwd=ROOT,
                             env=subprocess_env(), capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "generation 1: 2 self-play games" in resumed.stdout and "generation 0" not in resumed.stdout

    lineages = {run: json.loads((tmp_path / run / "three" / "lineage.json").read_text()) for run in ("whole", "killed")}
    one = lineages["killed"][1]
    assert [r["generation"] for r in lineages["killed"]] == [0, 1]
    assert one["gate"] == lineages["whole"][1]["gate"]                      # the same games, the same decision
    assert set(one["gate"]) == {"verdict", "deals", "games", "elo", "elo_low", "elo_high"}
    assert one["gate"]["deals"] == 2 and one["gate"]["games"] == 12
    assert one["gate"]["elo_low"] < one["gate"]["elo"] < one["gate"]["elo_high"]
    verdict = "H1" if one["gate"]["elo_low"] > 0 else "H0" if one["gate"]["elo_high"] < 0 else "undecided"
    assert one["gate"]["verdict"] == verdict and one["accepted"] == (verdict == "H1")
    assert read_table(root / "gen-001" / "gate", "games", ["game_id"]).num_rows == 12
    for name, before in selfplay.items():  # the self-play committed before the kill, not played again
        assert read_table(root / "gen-001" / "selfplay", name).equals(before), name
    results = read_table(root / "gen-001" / "gate", "results", ["game_id", "seat", "bot"]).to_pylist()
    lineups = {}
    for r in results:
        lineups.setdefault(r["game_id"], [None] * 3)[r["seat"]] = r["bot"]
    assert len({tuple(v) for v in lineups.values()}) == 6                   # every seating of the three
    assert {b for v in lineups.values() for b in v} == {"gen1-candidate", "gen1-current", "gen1-field1"}
    selfplay = read_table(root / "gen-001" / "selfplay", "games", ["num_players"]).column("num_players")
    assert set(selfplay.to_pylist()) == {3}

    for g, name in ((0, "model.azv"), (1, "candidate.azv")):
        a, b = (NTupleModel.load(tmp_path / run / "three" / f"gen-{g:03d}" / name) for run in ("whole", "killed"))
        assert a.players == 3 and np.array_equal(a.weights, b.weights)
    assert NTupleModel.load(root / "gen-001" / "candidate.azv").meta["fit"] == "td(lambda=0.5)"

    from mlflow.tracking import MlflowClient
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'killed' / 'mlflow.db'}")
    run_id = (root / "mlflow_run_id").read_text().strip()
    assert [m.step for m in client.get_metric_history(run_id, "held_out_loss")] == [0, 1]
    (low,) = client.get_metric_history(run_id, "gate_elo_low")
    assert low.step == 1 and low.value == pytest.approx(one["gate"]["elo_low"])
    assert [m.value for m in client.get_metric_history(run_id, "gate_deals")] == [2]
