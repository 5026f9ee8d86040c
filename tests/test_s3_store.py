"""records/s3store.py and records/s3lock.py against a real S3 server (SeaweedFS, tests/s3_server.py):
a run's small files, parts committed without rename (staged, a create-only commit, public copies),
readers reading only what the commits list, orphans and quarantine, and the lock (create-only,
compare-and-swap heartbeat, stale and dead-process takeover)."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from s3_server import s3_env, s3_server  # noqa: F401 (fixtures)

from records.checks import DamagedRecords
from records.columns import columns_of
from records.folder import RunInUse
from records.names import LOCK_FILE
from records.parts import PartWriter, part_bytes
from records.read import read_table
from records.s3lock import LOCK_TIMEOUT_S, S3Lock
from records.s3store import S3RunStore
from records.store import RunStore, open_store
from records.tables import build_table, empty_table


@pytest.fixture
def store(s3_env, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("AZUL_S3_CACHE", str(tmp_path / "cache"))
    return open_store(f"s3://{s3_env.bucket}/t-{uuid.uuid4().hex[:12]}/runs/quick")


def games(ids: list[str]) -> dict[str, pa.Table]:
    """A part's tables: games without moves (plies 0, rounds 0), one results row a seat."""
    n = len(ids)
    given = {"games": {"game_id": ids, "deal_seed": list(range(n)), "variant": ["standard"] * n,
                       "num_players": [2] * n, "rounds": [0] * n, "plies": [0] * n,
                       "termination": ["normal"] * n, "duration_s": [0.01] * n},
             "results": {"game_id": [i for i in ids for _ in range(2)], "seat": [0, 1] * n,
                         "bot": ["a", "b"] * n, "score": [3, 1] * n, "rank": [1, 2] * n,
                         "is_winner": [True, False] * n}}
    tables = {}
    for name, columns in given.items():
        rows = len(next(iter(columns.values())))
        full = {c.name: columns.get(c.name, [None] * rows) for c in columns_of(name) if c.name != "run_id"}
        tables[name] = [build_table(name, full, "run-1")]
    return tables


def test_open_store_takes_a_url_or_a_folder_and_never_makes_a_folder_named_s3(tmp_path, monkeypatch, s3_env):  # noqa: F811
    monkeypatch.chdir(tmp_path)
    assert isinstance(open_store("runs/quick"), RunStore)
    assert open_store(tmp_path / "x").root == tmp_path / "x"
    for text in (f"s3://{s3_env.bucket}/a/b", f"s3:/{s3_env.bucket}/a/b"):  # typer's Path leaves s3:/
        s = open_store(text)
        assert isinstance(s, S3RunStore) and str(s) == f"s3://{s3_env.bucket}/a/b"
        s.write_text("config.yaml", "name: b\n")
        assert s.read_text("config.yaml") == "name: b\n"
    with pytest.raises(ValueError, match="bad S3 URL"):
        open_store("s3://NO_bucket/x")
    assert not any(p.name.startswith("s3") for p in tmp_path.rglob("*"))


def test_small_files_names_folders_and_remove(store):
    assert not store.is_there()
    store.write_text("run.json", '{"run_id": "x"}\n')
    store.write_bytes("data/positions-00001.parquet", b"1")
    store.write_bytes("positions-00000.parquet", b"0")
    store.sub("gen-001").write_text("DONE", "3")
    assert store.is_there() and store.exists("run.json") and store.exists("data") and not store.exists("nope")
    assert store.names("positions-", ".parquet") == ["positions-00000.parquet"]  # not the nested one
    assert store.folders("gen-") == ["gen-001"] and store.sub("gen-001").read_text("DONE") == "3"
    store.remove("gen-001", "run.json", "not-there")
    assert store.folders("gen-") == [] and not store.exists("run.json")
    with pytest.raises(FileNotFoundError):
        store.read_text("run.json")


def test_a_part_is_staged_then_committed_and_reads_back_byte_for_byte(store):
    tables = games(["g1", "g2"])
    store.write_part(1, tables)
    commit = store.commit_of("000001")
    objects = store.objects
    for name, entry in commit["tables"].items():
        assert entry["object"] == f"{name}/part-000001.parquet"
        data, _ = objects.get(entry["object"])
        assert len(data) == entry["size"]
        assert objects.etag(entry["staged"]) is None  # the staged copy is gone once public
    expected = part_bytes(pa.concat_tables(tables["games"]))
    assert objects.get("games/part-000001.parquet")[0] == expected
    view = store.view()
    assert (view / "games" / "part-000001.parquet").read_bytes() == expected
    assert read_table(view, "games", ["game_id"]).column("game_id").to_pylist() == ["g1", "g2"]
    # a second commit of the same id is refused and leaves nothing staged
    with pytest.raises(FileExistsError, match="committed already"):
        store.write_part(1, games(["g9"]))
    assert objects.entries("_staged/") == {}
    assert read_table(store.view(), "games", ["game_id"]).num_rows == 2


def test_readers_see_only_committed_parts(store):
    store.write_part(1, games(["g1"]))
    # a writer killed after staging (no commit), and a stray object under a table's prefix
    store.objects.put("_staged/000002.deadbeef/games.parquet", part_bytes(games(["g2"])["games"][0]))
    store.objects.put("games/part-000003.parquet", part_bytes(games(["g3"])["games"][0]))
    assert store.committed() == ["000001"]
    assert [p.name for p in store.part_files("games")] == ["part-000001.parquet"]
    writer = PartWriter(store)  # the next number after every part there, committed or not
    assert writer.write(games(["g4"])) == 3
    assert store.committed() == ["000001", "000003"]
    assert sorted(read_table(store.view(), "games", ["game_id"]).column("game_id").to_pylist()) == ["g1", "g4"]
    # orphans: the staged part without a commit goes
    assert store.clean_orphans() == ["_staged/000002.deadbeef/games.parquet"]
    assert store.objects.entries("_staged/") == {}


def test_a_commit_whose_copy_was_not_made_reads_from_staging_and_is_finished(store):
    store.write_part(1, games(["g1"]))
    entry = store.commit_of("000001")["tables"]["games"]
    data = store.objects.get(entry["object"])[0]
    # as if the driver died between its commit and its copies
    store.objects.put(entry["staged"], data)
    store.objects.delete(entry["object"])
    assert (store.view() / "games" / "part-000001.parquet").read_bytes() == data
    assert store.clean_orphans() == []
    assert store.objects.get(entry["object"])[0] == data and store.objects.etag(entry["staged"]) is None


def test_a_damaged_committed_part_is_named_then_quarantined(store):
    store.write_part(1, games(["g1"]))
    store.write_part(2, games(["g2"]))
    store.objects.put("results/part-000002.parquet", b"PAR1 garbage")
    with pytest.raises(DamagedRecords, match=r"results/part-000002.parquet: its bytes are not the ones"):
        store.view()
    moved = store.quarantine("000002", {"results": "damaged"})
    assert [m[1].rsplit("/", 3)[-3:] for m in moved] == [["quarantine", "results", "part-000002.parquet"]]
    assert store.objects.get("quarantine/results/part-000002.parquet")[0] == b"PAR1 garbage"
    assert store.committed() == ["000001"]
    assert store.objects.entries("games/") .keys() == {"games/part-000001.parquet"}
    assert read_table(store.view(), "games", ["game_id"]).column("game_id").to_pylist() == ["g1"]


# ---------------------------------------------------------------- the lock
def test_a_second_driver_is_refused_and_the_lock_is_given_back(store):
    with store.lock():
        fields = json.loads(store.objects.get(LOCK_FILE)[0])
        assert fields["pid"] == os.getpid() and fields["host"] == socket.gethostname()
        assert store.holder() == f"{os.getpid()} on {socket.gethostname()}"
        other = open_store(str(store))
        with pytest.raises(RunInUse, match=r"another driver \(pid \d+ on .*\) is writing this run"):
            with other.lock():
                pass
    assert store.objects.etag(LOCK_FILE) is None and store.holder() is None
    with other.lock():  # free again
        assert store.holder() is not None


def test_the_heartbeat_is_compare_and_swap_and_a_taken_over_lock_is_lost(store):
    lock = S3Lock(store.objects, str(store))
    lock.take()
    try:
        first = lock.etag
        before = json.loads(store.objects.get(LOCK_FILE)[0])["heartbeat"]
        time.sleep(0.01)
        assert lock.refresh() and lock.etag != first
        assert json.loads(store.objects.get(LOCK_FILE)[0])["heartbeat"] > before
        # another driver takes it over (as after a stale heartbeat): our next beat fails its If-Match
        store.objects.put(LOCK_FILE, json.dumps({"pid": 1, "host": "elsewhere", "heartbeat": time.time()}).encode())
        assert lock.refresh() is False and lock.lost
        with pytest.raises(RunInUse, match="pid 1 on elsewhere"):
            lock.check()
    finally:
        lock.release()
    assert store.holder() == "1 on elsewhere"  # not ours: left as it is


def test_a_stale_lock_and_a_dead_process_lock_are_taken_over(store):
    stale = {"owner": "x", "pid": 1, "host": "elsewhere", "heartbeat": time.time() - LOCK_TIMEOUT_S - 1}
    store.objects.put(LOCK_FILE, json.dumps(stale).encode())
    assert store.holder() is None
    with store.lock():
        assert store.holder() == f"{os.getpid()} on {socket.gethostname()}"
    # a fresh lock of a process of this host that is gone (kill -9): taken at once
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    fields = {"owner": "y", "pid": int(dead.stdout), "host": socket.gethostname(), "heartbeat": time.time()}
    store.objects.put(LOCK_FILE, json.dumps(fields).encode())
    with store.lock():
        assert json.loads(store.objects.get(LOCK_FILE)[0])["pid"] == os.getpid()
    # a fresh lock held elsewhere is not
    fields = {"owner": "z", "pid": 1, "host": "elsewhere", "heartbeat": time.time()}
    store.objects.put(LOCK_FILE, json.dumps(fields).encode())
    with pytest.raises(RunInUse):
        with store.lock():
            pass


def test_a_part_is_not_committed_by_a_driver_that_lost_its_lock(store):
    with store.lock():
        store.write_part(1, games(["g1"]))
        store.objects.put(LOCK_FILE, json.dumps({"pid": 1, "host": "elsewhere", "heartbeat": time.time()}).encode())
        store.held.refresh()
        with pytest.raises(RunInUse):
            store.write_part(2, games(["g2"]))
    assert store.committed() == ["000001"]


def test_local_store_writes_parts_as_before(tmp_path):
    local = open_store(tmp_path / "run")
    writer = PartWriter(local)
    assert writer.write(games(["g1"])) == 1
    assert sorted(p.name for p in (tmp_path / "run" / "games").iterdir()) == ["part-000001.parquet"]
    assert local.committed() == ["000001"] and local.view() == tmp_path / "run"
    assert pq.read_table(local.part_files("moves")[0]).num_rows == 0
    assert empty_table("moves").num_rows == 0
