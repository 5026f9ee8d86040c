"""``azul sprt`` and ``azul tune`` with ``--out s3://...`` against a real S3 server (SeaweedFS,
tests/s3_server.py): the same verdict, parameters and records as the same run written to a folder,
and a stopped one finished with ``--resume`` from what the store keeps."""
from __future__ import annotations

import json
import shlex
import sqlite3

import yaml
from s3_server import s3_env, s3_server  # noqa: F401 (fixtures)
from test_s3_league import azul, out, rows  # noqa: F401 (out: a fixture)

from kinds.sprt import SprtSettings, run_sprt
from kinds.tune import run_tune
from kinds.tune_config import parse_tune
from records.columns import TABLES
from records.folder import run_kind
from records.store import open_store

SPRT = ["sprt", "--bot", "greedy", "--bot", "random", "--elo1", "20", "--seed", "4", "--workers", "0", "-f", "json"]
KEPT = ("verdict", "llr", "pairs", "pentanomial", "elo", "games", "pairs_after")


def _json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout.strip().splitlines()[-1])


def _stop_after_first_stage(progress) -> None:
    raise KeyboardInterrupt


def test_an_sprt_to_s3_is_the_local_test_and_resumes_from_the_store(tmp_path, out, s3_env):  # noqa: F811
    local = _json(azul(*SPRT, "--max-pairs", "40", "--out", tmp_path / "local", "--no-mlflow"))
    # stopped after its first stage, then finished by the command from what the store keeps
    settings = SprtSettings("greedy", "random", elo1=20, seed=4, max_pairs=40, workers=0, out=out, mlflow=False)
    first = run_sprt(settings, progress=_stop_after_first_stage)
    run = f"{out}/sprt"
    assert first.interrupted and first.run_dir == run and 0 < first.played < 2 * local["pairs"]
    store = open_store(run)
    assert not store.exists(".lock") and store.exists("sprt.yaml") and not (tmp_path / "s3:").exists()
    status = azul("league", "status", run)  # where it stands, and the command that finishes it
    assert status.exit_code == 0 and status.output.startswith("SPRT sprt: "), status.output
    finish = shlex.split(status.output.split("finish it with: ", 1)[1].strip()[:-1])  # the store's settings, its URL
    assert finish[:2] == ["azul", "sprt"] and finish[-5:] == ["--out", out, "--name", "sprt", "--resume"], finish
    there = _json(azul(*finish[1:], "--workers", "0", "-f", "json"))
    assert there["run_dir"] == run and there["new"] == "greedy" and there["elo1"] == 20
    assert {k: there[k] for k in KEPT} == {k: local[k] for k in KEPT}
    view = store.view()
    assert run_kind(view) == "sprt"
    for table in TABLES:
        assert rows(view, table) == rows(tmp_path / "local" / "sprt", table), table
    refused = azul(*SPRT, "--max-pairs", "40", "--out", out, "--no-mlflow")
    assert refused.exit_code == 1 and f"{run} already holds this test's records: add --resume" in refused.output
    with sqlite3.connect(tmp_path / "mlflow.db") as con:  # the resumed test logged to the local default
        dump = "\n".join(con.iterdump())
    assert "sprt.verdict" in dump and run in dump and s3_env.secret_key not in dump


def tune_data(out: str, **fields) -> dict:
    return {"name": "t", "bot": "heuristic", "params": {"line": {}, "marker": {"c_end": 0.5}}, "pairs": 12,
            "batch": 4, "seed": 2, "out": out, "workers": 0, **fields}


def test_a_tune_to_s3_finds_the_local_tunes_values_and_resumes_from_the_store(tmp_path, out):  # noqa: F811
    (tmp_path / "local").mkdir()
    local_file = tmp_path / "local" / "tune.yaml"
    local_file.write_text(yaml.safe_dump(tune_data(str(tmp_path / "local"))))
    local = _json(azul("tune", local_file, "--no-mlflow", "-f", "json"))
    # the file names a folder; --out puts the tune on the store. Stopped after two of its three steps:
    def stop(progress):
        if progress.steps == 2:
            raise KeyboardInterrupt
    first = run_tune(parse_tune(tune_data(out)), mlflow=False, progress=stop)
    run = f"{out}/t"
    assert first.interrupted and len(first.steps) == 2 and first.run_dir == run
    status = azul("league", "status", run)
    assert status.exit_code == 0 and f"azul tune TUNE.yaml --out {out} --name t --resume (TUNE.yaml: the tune file that " \
        f"started it, as {run}/tune.yaml keeps it)" in status.output, status.output
    there = _json(azul("tune", local_file, "--out", out, "--resume", "--no-mlflow", "-f", "json"))
    assert there["run_dir"] == run and there["complete"]
    for key in ("params", "spec", "spread", "last", "yaml"):
        assert there[key] == local[key], key
    store = open_store(run)
    done, local_done = (json.loads(t) for t in (store.read_text("tune.json"),
                                                (tmp_path / "local" / "t" / "tune.json").read_text()))
    assert done["trajectory"] == local_done["trajectory"] and done["params"] == local["params"]
    assert store.read_text("tune.svg") == (tmp_path / "local" / "t" / "tune.svg").read_text()
    for table in TABLES:
        assert rows(store.view(), table) == rows(tmp_path / "local" / "t", table), table
    local_file.write_text(yaml.safe_dump(tune_data(str(tmp_path / "local"), seed=3)))  # another tune
    changed = azul("tune", local_file, "--out", out, "--resume", "--no-mlflow")
    assert changed.exit_code == 1 and f"cannot resume {run}: the tune differs" in changed.output, changed.output
    assert not (tmp_path / "s3:").exists()
