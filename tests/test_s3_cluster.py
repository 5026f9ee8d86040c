"""A league with ``ray.write: workers`` into object storage on a three-node Ray cluster
(``ray.cluster_utils``: a head that runs no tasks and two worker nodes), each worker node in a work
folder of its own (its raylet's and workers' working folder, Ray session, TMPDIR and S3 cache, as
on machines with no shared disk), one worker node removed mid-run: every task commits its own part
to the S3 server (SeaweedFS, tests/s3_server.py), no node writes a local run folder, and every
game is recorded exactly once."""
from __future__ import annotations

import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from s3_server import s3_server  # noqa: F401 (fixture)
from test_league_cli import start, write
from test_league_cluster import add_node, three_nodes
from test_league_support import ROOT, bot, league

from records.read import read_table
from records.store import open_store


@pytest.fixture(scope="module")
def s3_cluster(s3_server, tmp_path_factory):  # noqa: F811
    """The three nodes, started with the AWS settings of the test server in their environment (as
    a user sets them on every node before ``ray start``), and three work folders: one for each
    worker node, one for the node that joins later (short paths under /tmp: Ray's sockets live in
    them); the settings taken away after. Yields the cluster, its worker nodes and the folders."""
    settings = {**s3_server.env(), "AZUL_S3_CACHE": str(tmp_path_factory.mktemp("cache"))}
    before = {k: os.environ.get(k) for k in settings}
    os.environ.update(settings)
    homes = [tempfile.mkdtemp(prefix="azn", dir="/tmp") for _ in range(3)]
    try:
        with three_nodes(homes[:2]) as (c, nodes):
            yield c, nodes, homes
    finally:
        for home in homes:
            shutil.rmtree(home, ignore_errors=True)
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_three_nodes_write_a_league_into_the_store_with_a_node_removed(tmp_path, s3_cluster, s3_server):  # noqa: F811
    c, nodes, homes = s3_cluster
    home_of = {n.node_id: home for n, home in zip(nodes, homes)}
    marks = tmp_path / "marks"  # where each node's bot says it played (the test's own look, not the league's)
    marks.mkdir()
    out = f"s3://{s3_server.bucket}/t-{uuid.uuid4().hex[:12]}/runs"
    data = league(out, [bot("slow", "NodeBot", seconds=0.01, marks=str(marks)), "random", "greedy"], name="lost",
                  deals=6, flush_seconds=0.1, batch_games=1, ray={"workers": 2, "write": "workers"})
    proc = start(write(tmp_path, data), c.address)
    store = open_store(f"{out}/lost")
    deadline = time.monotonic() + 90
    while not store.committed():
        assert proc.poll() is None and time.monotonic() < deadline, proc.stdout.read() if proc.poll() else "slow"
        time.sleep(0.1)
    c.remove_node(nodes[1], allow_graceful=False)  # its raylet and workers killed
    assert len(read_table(store.view(), "games", ["game_id"])) < 36  # games were left to play
    nodes[1] = add_node(c, homes[2])  # a fresh node joins, in a folder of its own
    home_of[nodes[1].node_id] = homes[2]
    output, _ = proc.communicate(timeout=240)
    assert proc.returncode == 0 and "36 of 36 recorded" in output, output
    parts = store.committed()
    assert len(parts) > 1 and all(len(p) == 15 for p in parts)  # the tasks' own parts
    ids = read_table(store.view(), "games", ["game_id"]).column("game_id").to_pylist()
    assert len(ids) == len(set(ids)) == 36
    for name in ("results", "moves", "rounds"):
        assert set(read_table(store.view(), name, ["game_id"]).column("game_id").to_pylist()) == set(ids)
    assert not (ROOT / "s3:").exists() and not (tmp_path / "s3:").exists()  # no node made a local folder
    played = {p.name: p.read_text().split("\n")[:2] for p in marks.glob("[!.]*")}  # a killed write: a dot name
    assert len(played) >= 2 and set(played) <= set(home_of), (played, home_of)  # worker nodes, never the head
    for node, (cwd, tmp) in played.items():  # each in its own folder
        assert (cwd, tmp) == (home_of[node], os.path.join(home_of[node], "tmp")), (node, cwd, tmp)
    for home in homes:  # and none holds a record or a folder named s3:
        assert not any(Path(home).rglob("*.parquet")) and not (Path(home) / "s3:").exists(), home
