"""``azul atlas`` with ``--out s3://...`` against a real S3 server (SeaweedFS, tests/s3_server.py):
the same verdicts as the same atlas written to a folder, its claims' runs and files in the store,
and a stopped atlas finished with ``--resume``."""
from __future__ import annotations

import json

from s3_server import s3_env, s3_server  # noqa: F401 (fixtures)
from test_atlas import CLAIMS, claims_file
from test_s3_league import azul, out  # noqa: F401 (out: a fixture)

from kinds import kind_of
from kinds.atlas import run_atlas
from kinds.atlas_config import load_atlas
from records.store import open_store

ONE = {**CLAIMS, "claims": [{**CLAIMS["claims"][0], "players": [2], "compare": None}, CLAIMS["claims"][1]]}


def test_an_atlas_on_s3_is_the_local_atlas_and_resumes_from_the_store(tmp_path, out):  # noqa: F811
    path = claims_file(tmp_path, ONE)
    local = azul("atlas", path, "--out", tmp_path / "local", "--format", "json", "--quiet")
    assert local.exit_code == 0, local.output

    def stop(run, progress):  # in the second claim's run
        if run == "first-mover-2p" and progress.recorded >= 10:
            raise KeyboardInterrupt

    first = run_atlas(load_atlas(path, out=out), progress=stop)
    assert first.interrupted and len(first.atlas["claims"]) == 1
    store = open_store(f"{out}/tiny")
    assert kind_of(store).status(store).state == "stopped"
    assert json.loads(store.read_text("atlas.json"))["complete"] is False
    finished = azul("atlas", path, "--out", out, "--resume", "--format", "json", "--quiet")
    assert finished.exit_code == 0, finished.output
    assert json.loads(finished.stdout) == json.loads(local.stdout)
    assert store.exists("atlas.html") and kind_of(store).status(store).state == "finished"
    assert kind_of(store).nested_runs(store) == ["claim-runs/first-mover-2p", "claim-runs/marker-avoid-2p"]
