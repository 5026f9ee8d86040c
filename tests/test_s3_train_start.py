"""``start.records`` of ``azul train`` may name runs on object storage (SeaweedFS, tests/s3_server.py):
a league played to ``s3://`` and a generation-0-only training run fit on it ends as the same run fit
on a local copy of that league; a URL with no committed run is one line naming it, checked before
anything is written."""
from __future__ import annotations

import json
import shutil

import pyarrow.parquet as pq
from s3_server import s3_env, s3_server  # noqa: F401 (fixtures)
from test_s3_league import azul, config, out  # noqa: F401 (out: a fixture)
from test_s3_train import _model, _positions, _untimed

from records.store import local_run, open_store


def _train(tmp_path, name: str, records: str, where) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\nseed: 5\ngenerations: 0\nstart: {{records: [\"{records}\"]}}\n"
                    f"train: {{value: ntuple, epochs: 2, batch: 32, lr: 0.002}}\nmlflow: false\nworkers: 0\n"
                    f"out: {where}\n", encoding="utf-8")
    return str(path)


def test_generation_zero_on_a_league_on_s3_equals_it_on_the_leagues_local_copy(tmp_path, out):  # noqa: F811
    played = azul("league", "run", config(tmp_path), "--out", out, "--quiet", "--no-report")
    assert played.exit_code == 0, played.output
    league = f"{out}/s3l"
    copy = tmp_path / "copy" / "s3l"
    shutil.copytree(local_run(league), copy)  # the league's committed parts and small files, as a folder

    assert azul("train", _train(tmp_path, "from-s3", league, out)).exit_code == 0
    local = tmp_path / "local"
    assert azul("train", _train(tmp_path, "from-copy", str(copy), local)).exit_code == 0
    store, there = open_store(f"{out}/from-s3"), local / "from-copy"
    lineage = json.loads(store.read_text("lineage.json"))
    assert [_untimed(r) for r in lineage] == [_untimed(r) for r in json.loads((there / "lineage.json").read_text())]
    assert lineage[0]["positions"] > 0 and lineage[0]["model"] == "gen-000/model.azv"
    (header, arrays), (local_header, local_arrays) = (_model(store.read_bytes("gen-000/model.azv"), f"{out}/from-s3"),
                                                      _model((there / "gen-000/model.azv").read_bytes(), str(there)))
    assert header == local_header and arrays.keys() == local_arrays.keys()
    assert all((arrays[k] == local_arrays[k]).all() for k in arrays)
    data = store.sub("gen-000/data")
    shards = data.names("positions-", ".parquet")
    assert shards and shards == sorted(p.name for p in (there / "gen-000" / "data").glob("positions-*"))
    for shard in shards:  # the same positions, but for the run each names: the league's URL, the copy's path
        assert _positions(data.read_bytes(shard)) == _positions((there / "gen-000" / "data" / shard).read_bytes())
        assert set(pq.read_table(data.local(shard)).column("run").to_pylist()) == {league}  # its URL as given
    assert not (tmp_path / "s3:").exists()


def test_start_records_naming_no_run_on_s3_is_one_line_before_anything_is_written(tmp_path, out):  # noqa: F811
    nothing = f"{out}/nothing-here"
    path = _train(tmp_path, "t", nothing, out)
    refused = azul("train", path)
    assert refused.exit_code == 1 and "Traceback" not in refused.output, refused.output
    assert refused.output.strip().splitlines() == [f"error: {path}: start.records[0]: {nothing}: no game records "
                                                   "there"], refused.output
    assert not open_store(f"{out}/t").is_there()
    bad = azul("train", _train(tmp_path, "t", "s3://Not_A_Bucket/x", out))
    assert bad.exit_code == 1 and "start.records[0]: bad S3 URL" in bad.output and "Traceback" not in bad.output
    assert not open_store(f"{out}/t").is_there()
