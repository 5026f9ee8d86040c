"""The local side of runs on object storage, against a real S3 server (SeaweedFS, tests/s3_server.py):
two processes refreshing one run's view (records/s3store.py ``view``) while a writer commits parts
never trip over each other's files, and each ends with the run's view; the S3 client is made once a
process and source of credentials (records/objects.py ``shared_client``), not once a store."""
from __future__ import annotations

import multiprocessing
import os
import uuid
from pathlib import Path

import pytest
from s3_server import s3_env, s3_server  # noqa: F401 (fixtures)
from test_s3_store import games

import records.objects as objects
from records.columns import TABLES
from records.folder import replace_bytes
from records.s3store import S3RunStore
from records.store import open_store

READERS = 2
PARTS = 12


def _read_views(url: str, done, errors) -> None:
    """A reader process: the run's view again and again until the writer is done, then once more."""
    try:
        while not done.is_set():
            S3RunStore(url).view()
        S3RunStore(url).view()
    except Exception as exc:  # noqa: BLE001 - the test's assertion says what it was
        errors.put(f"{os.getpid()}: {type(exc).__name__}: {exc}")


def _files(folder: Path) -> dict[str, bytes]:
    """The run's files in a view (its small files and parts), not the view's own."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and not p.name.startswith(".") and p.name != "url.txt"}


def test_two_processes_refreshing_one_view_while_parts_commit(s3_env, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("AZUL_S3_CACHE", str(tmp_path / "cache"))  # the readers' one cache: one view folder
    url = f"s3://{s3_env.bucket}/t-{uuid.uuid4().hex[:12]}/runs/shared"
    store = open_store(url)
    store.write_text("run.json", '{"run_id": "run-1", "kind": "league"}\n')
    context = multiprocessing.get_context("fork")
    done, errors = context.Event(), context.Queue()
    readers = [context.Process(target=_read_views, args=(url, done, errors)) for _ in range(READERS)]
    for reader in readers:
        reader.start()
    try:
        for n in range(1, PARTS + 1):
            store.write_part(n, games([f"g{n}a", f"g{n}b"]))
            store.write_text("standings.json", f'{{"after": {n}}}\n')  # a small file that changes
    finally:
        done.set()
        for reader in readers:
            reader.join(120)
    found = []
    while not errors.empty():
        found.append(errors.get())
    assert found == [] and all(r.exitcode == 0 for r in readers), found
    view = store.view()  # what the readers' last refreshes left, brought up to date (nothing to fetch)
    expected = {f"{name}/part-{n:06d}.parquet": store.part_data(f"{n:06d}", name)
                for name in TABLES for n in range(1, PARTS + 1)}
    expected |= {name: store.read_bytes(name) for name in ("run.json", "standings.json")}
    assert _files(view) == expected
    assert not [p.name for p in view.rglob("*.tmp")]  # no writer's temporary file left behind


def test_a_temporary_name_is_its_writers_own(tmp_path, monkeypatch):
    """replace_bytes: the rename-over of a local file as before, under a name no other writer uses."""
    used = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda src, dst: (used.append(Path(src).name), real(src, dst)))
    target = tmp_path / "run.json"
    replace_bytes(target, b"one")
    replace_bytes(target, b"two")
    assert target.read_bytes() == b"two" and sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]
    assert used[0] != used[1] and all(n.startswith(f".run.json.{os.getpid()}-") and n.endswith(".tmp") for n in used)


def test_stores_of_one_endpoint_share_one_client_per_process(s3_env, tmp_path, monkeypatch):  # noqa: F811
    from kinds import kind_named

    monkeypatch.setenv("AZUL_S3_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(objects, "_SHARED", {})
    made = []
    real = objects.client
    monkeypatch.setattr(objects, "client", lambda: made.append(1) or real())
    prefix = f"s3://{s3_env.bucket}/t-{uuid.uuid4().hex[:12]}"
    one, two = open_store(f"{prefix}/a"), open_store(f"{prefix}/b")
    assert one.objects._s3 is two.objects._s3 and one.sub("x").objects._s3 is one.objects._s3
    one.write_part(1, games(["g1"]))
    one.write_text("run.json", '{"run_id": "run-1", "kind": "league"}\n')
    for _ in range(3):  # azul serve's polls: a kind's status of the URL, again and again
        status = kind_named("league").status(f"{prefix}/a")
        assert status.recorded == 1
    assert len(made) == 1
    # another source of endpoint or credentials: a client of its own (held by a hash, never the values)
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    assert open_store(f"{prefix}/a").objects._s3 is not one.objects._s3 and len(made) == 2
    assert s3_env.secret_key not in repr(objects._SHARED) and s3_env.access_key not in repr(objects._SHARED)
    monkeypatch.setenv("AWS_REGION", s3_env.region)
    assert open_store(f"{prefix}/c").objects._s3 is one.objects._s3 and len(made) == 2
    # a forked process makes its own (a client's connections are not to be shared across a fork)
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as pool:
        assert pool.apply(_own_client, (id(one.objects._s3),)) is True


def _own_client(parent: int) -> bool:
    """In a forked child, where the parent's client is still in memory: whether it makes its own."""
    return id(objects.shared_client()) != parent and objects.shared_client() is objects.shared_client()


@pytest.fixture(autouse=True)
def _no_folder_named_s3(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    yield
    assert not (tmp_path / "s3:").exists()
