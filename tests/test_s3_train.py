"""``azul train --out s3://...`` against a real S3 server (SeaweedFS, tests/s3_server.py): a
two-generation n-tuple training run, killed in generation 2 and resumed from what the store keeps,
ends with the tables, lineage, positions and curve of the same run written to a folder; MLflow
goes to its own URI; a second driver is refused; ``--fresh`` removes the run's objects; ``league
status`` counts its nested runs on the store. Every byte goes through the store: no local folder
named ``s3:``."""
from __future__ import annotations

import io
import json
import sqlite3

import numpy as np
import pyarrow.parquet as pq
import pytest
from s3_server import s3_env, s3_server  # noqa: F401 (fixtures)
from test_league_support import league
from test_s3_league import azul, out  # noqa: F401 (out: a fixture)
from test_train import killed_in_generation_two, ntuple_config

import kinds.train as train_module
from bots.value_file import read_model
from kinds.train import load_train_config, run_train
from records.read import read_table
from records.store import open_store
from tournament.config import parse_config
from tournament.runner import run_league

# what two plays of one training run cannot share: how fast they went
TIMINGS = ("selfplay_games_per_s", "train_samples_per_s")
MODELS = ((0, "model.azv"), (1, "candidate.azv"), (2, "candidate.azv"))


def _config(tmp_path, records, out: str):  # noqa: F811 (out: a URL or a folder here)
    return ntuple_config(tmp_path, records, "nt", where=out)


def _untimed(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in TIMINGS}


def _model(data: bytes, root: str) -> tuple[dict, dict]:
    """A model file's header, without its timing and with its positions' folders named relative
    to the run ``root``, and its arrays."""
    header, arrays = read_model(data)
    meta = header["meta"]
    meta["metrics"] = _untimed(meta["metrics"])
    meta["data"] = [d.removeprefix(root) for d in meta["data"]]
    return header, arrays


def _positions(data: bytes) -> list[dict]:
    """A shard's rows without the ``run`` column (the folder or URL its self-play was read from)."""
    return pq.read_table(io.BytesIO(data)).drop(["run"]).to_pylist()


def test_a_training_run_to_s3_killed_and_resumed_equals_the_same_run_in_a_folder(tmp_path, out, s3_env,  # noqa: F811
                                                                                  monkeypatch):
    records = parse_config(league(tmp_path, ["greedy", "heuristic"], name="r", deals=3, seed=4))
    assert run_league(records, progress=False).complete
    local = tmp_path / "local"
    whole = azul("train", _config(tmp_path, tmp_path / "r", str(local)))  # MLflow on, in local/mlflow.db
    assert whole.exit_code == 0, whole.output

    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{tmp_path / 'tracking.db'}")
    path = _config(tmp_path, tmp_path / "r", out)
    fit = killed_in_generation_two(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        run_train(load_train_config(path), log=lambda line: None)
    monkeypatch.setattr(train_module, "_fit", fit)
    run = f"{out}/nt"
    store = open_store(run)
    assert len(json.loads(store.read_text("lineage.json"))) == 2 and not store.exists(".lock")
    assert store.sub("gen-002/selfplay").committed() and not store.exists("gen-002/candidate.azv")

    status = azul("league", "status", run)  # its nested runs counted on the store: 2 generations' self-play
    assert status.exit_code == 0, status.output
    assert status.output.startswith("training run nt: ") and "incomplete" in status.output, status.output
    assert f"azul train TRAIN.yaml --out {out} --name nt --resume (TRAIN.yaml: the train config that started it, as " \
           f"{run}/train.yaml keeps it)" in status.output
    nested = train_module.TRAIN.nested_runs(run)
    assert nested == ["gen-001/gate", "gen-001/selfplay", "gen-002/selfplay"], nested
    games = sum(read_table(open_store(f"{run}/{inner}").view(), "games").num_rows for inner in nested)
    assert f"training run nt: {games:,} games recorded" in status.output and games >= 6, status.output

    with store.lock():  # another driver holds the run: refused, nothing written
        refused = azul("train", path, "--out", out, "--resume")
    assert refused.exit_code == 1 and f"{run}: another driver (pid " in refused.output, refused.output
    assert not store.exists("gen-002/candidate.azv")

    resumed = azul("train", path, "--out", out, "--resume")  # typer's s3:/B/P of the URL
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.output.strip().splitlines()[-1])["run_dir"] == run
    lineage, there = (json.loads(text) for text in (store.read_text("lineage.json"),
                                                    (local / "nt" / "lineage.json").read_text()))
    assert [r["generation"] for r in lineage] == [0, 1, 2]
    assert [_untimed(r) for r in lineage] == [_untimed(r) for r in there]  # relative refs: the same lineage
    for g, name in MODELS:
        ref = f"gen-{g:03d}/{name}"
        (header, arrays), (local_header, local_arrays) = (
            _model(store.read_bytes(ref), run), _model((local / "nt" / ref).read_bytes(), str(local / "nt")))
        assert header == local_header, ref
        assert arrays.keys() == local_arrays.keys() and all(np.array_equal(arrays[k], local_arrays[k]) for k in arrays)
    for g in range(3):
        data = store.sub(f"gen-{g:03d}/data")
        shards = data.names("positions-", ".parquet")
        assert shards == sorted(p.name for p in (local / "nt" / f"gen-{g:03d}" / "data").glob("positions-*"))
        for shard in shards:
            assert _positions(data.read_bytes(shard)) == _positions((local / "nt" / f"gen-{g:03d}" / "data" / shard)
                                                                    .read_bytes())
        assert data.read_text("DONE") == (local / "nt" / f"gen-{g:03d}" / "data" / "DONE").read_text()
    selfplay = pq.read_table(store.sub("gen-001/data").local("positions-00000.parquet")).column("run")
    assert set(selfplay.to_pylist()) == {f"{run}/gen-001/selfplay"}  # the positions name the run's URL
    assert store.read_bytes("curve.png") == (local / "nt" / "curve.png").read_bytes()

    run_id = store.read_text("mlflow_run_id").strip()
    with sqlite3.connect(tmp_path / "tracking.db") as con:  # MLFLOW_TRACKING_URI, never the bucket
        steps = con.execute("SELECT step FROM metrics WHERE run_uuid = ? AND key = 'held_out_loss' ORDER BY step",
                            (run_id,)).fetchall()
        dump = "\n".join(con.iterdump())
    assert [s for (s,) in steps] == [0, 1, 2] and s3_env.secret_key not in dump and s3_env.endpoint not in dump
    artifacts = sorted(p.relative_to(tmp_path / "mlartifacts").as_posix()
                       for p in (tmp_path / "mlartifacts").rglob("*") if p.is_file())
    assert [a.split("/artifacts/", 1)[1] for a in artifacts] == [
        "curve.png", "gen-000/model.azv", "gen-001/candidate.azv", "gen-002/candidate.azv", "lineage.json"]
    assert not (tmp_path / "s3:").exists() and not (tmp_path / "local" / "s3:").exists()


def test_fresh_removes_a_training_runs_objects_and_status_reads_it(tmp_path, out):  # noqa: F811
    path = tmp_path / "t.yaml"
    path.write_text(f"name: t\nout: {out}\ngenerations: 0\nmlflow: false\n", encoding="utf-8")
    assert azul("train", path).exit_code == 0
    run = f"{out}/t"
    store = open_store(run)
    store.write_bytes("gen-007/candidate.azv", b"a generation of an earlier, longer run")
    again = azul("train", path)
    assert again.exit_code == 1 and f"{run} already holds a training run" in again.output and "--fresh" in again.output
    fresh = azul("train", path, "--fresh")
    assert fresh.exit_code == 0, fresh.output
    assert not store.exists("gen-007") and json.loads(store.read_text("lineage.json"))[0]["generation"] == 0
    status = azul("league", "status", run)
    assert status.exit_code == 0, status.output
    assert "training run t: 0 games recorded" in status.output and "complete" in status.output
    assert "lineage: 1 of 1 generations, accepted [0]; the current model: value-2p" in status.output
    assert not (tmp_path / "s3:").exists()
