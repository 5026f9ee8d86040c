"""``azul train`` at 3 players (kinds/train.py, kinds/train_gate.py): generation 0 fits 3-player
records, a generation plays self-play at 3-player tables and is gated by a league of candidate,
current and a copy of current on shared deals with every seating, rated by Plackett-Luce; killed
in its gate and resumed (MLflow on, as a user runs it), it ends as a run never killed."""
from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import kinds.train as train_module
from azul_cli.main import app
from kinds.train import load_train_config, run_train
from learn.ntuple import NTupleModel
from test_league_support import league
from tournament import read_table
from tournament.config import parse_config
from tournament.runner import run_league


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


def test_a_3_player_train_runs_gates_by_plackett_luce_is_killed_and_resumes(tmp_path, monkeypatch):
    records = parse_config(league(tmp_path, ["greedy", "heuristic", "random"], name="r3", players=3, deals=2,
                                  seed=4))
    assert run_league(records, progress=False).complete
    whole = CliRunner().invoke(app, ["train", str(_config(tmp_path, tmp_path / "r3", "whole"))])
    assert whole.exit_code == 0, whole.output
    assert "gate " in whole.output and "after 2 deals (12 games)" in whole.output

    gate = train_module.gate

    def killed(c, gen, g, candidate, current):  # the gate's games recorded, then the process dies
        gate(c, gen, g, candidate, current)
        raise KeyboardInterrupt

    monkeypatch.setattr(train_module, "gate", killed)
    path = _config(tmp_path, tmp_path / "r3", "killed")
    with pytest.raises(KeyboardInterrupt):
        run_train(load_train_config(path), log=lambda line: None)
    monkeypatch.setattr(train_module, "gate", gate)
    root = tmp_path / "killed" / "three"
    assert len(json.loads((root / "lineage.json").read_text())) == 1      # generation 0 only
    resumed = CliRunner().invoke(app, ["train", str(path), "--resume"])
    assert resumed.exit_code == 0, resumed.output

    lineages = {run: json.loads((tmp_path / run / "three" / "lineage.json").read_text()) for run in ("whole", "killed")}
    one = lineages["killed"][1]
    assert [r["generation"] for r in lineages["killed"]] == [0, 1]
    assert one["gate"] == lineages["whole"][1]["gate"]                      # the same games, the same decision
    assert set(one["gate"]) == {"verdict", "deals", "games", "elo", "elo_low", "elo_high"}
    assert one["gate"]["deals"] == 2 and one["gate"]["games"] == 12
    assert one["gate"]["elo_low"] < one["gate"]["elo"] < one["gate"]["elo_high"]
    verdict = "H1" if one["gate"]["elo_low"] > 0 else "H0" if one["gate"]["elo_high"] < 0 else "undecided"
    assert one["gate"]["verdict"] == verdict and one["accepted"] == (verdict == "H1")
    games = read_table(root / "gen-001" / "gate", "games", ["game_id"]).num_rows
    assert games == 12                                                       # not played again
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
