"""A league with ``ray.write: workers`` into object storage on a three-node Ray cluster
(``ray.cluster_utils``: a head that runs no tasks and two worker nodes), one worker node removed
mid-run: every task commits its own part to the S3 server (SeaweedFS, tests/s3_server.py), no node
writes a local run folder, and every game is recorded exactly once."""
from __future__ import annotations

import os
import time
import uuid

import pytest
from s3_server import s3_server  # noqa: F401 (fixture)
from test_league_cli import start, write
from test_league_cluster import NODE, three_nodes
from test_league_support import ROOT, bot, league

from records.read import read_table
from records.store import open_store


@pytest.fixture(scope="module")
def s3_cluster(s3_server, tmp_path_factory):  # noqa: F811
    """The three nodes, started with the AWS settings of the test server in their environment (as
    a user sets them on every node before ``ray start``); the settings taken away after."""
    settings = {**s3_server.env(), "AZUL_S3_CACHE": str(tmp_path_factory.mktemp("cache"))}
    before = {k: os.environ.get(k) for k in settings}
    os.environ.update(settings)
    try:
        with three_nodes() as made:
            yield made
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_three_nodes_write_a_league_into_the_store_with_a_node_removed(tmp_path, s3_cluster, s3_server):  # noqa: F811
    c, nodes = s3_cluster
    out = f"s3://{s3_server.bucket}/t-{uuid.uuid4().hex[:12]}/runs"
    data = league(out, [bot("slow", "SlowBot", seconds=0.01), "random", "greedy"], name="lost", deals=6,
                  flush_seconds=0.1, batch_games=1, ray={"workers": 2, "write": "workers"})
    proc = start(write(tmp_path, data), c.address)
    store = open_store(f"{out}/lost")
    deadline = time.monotonic() + 90
    while not store.committed():
        assert proc.poll() is None and time.monotonic() < deadline, proc.stdout.read() if proc.poll() else "slow"
        time.sleep(0.1)
    c.remove_node(nodes[1], allow_graceful=False)  # its raylet and workers killed
    assert len(read_table(store.view(), "games", ["game_id"])) < 36  # games were left to play
    nodes[1] = c.add_node(**NODE)  # a fresh node joins
    output, _ = proc.communicate(timeout=240)
    assert proc.returncode == 0 and "36 of 36 recorded" in output, output
    parts = store.committed()
    assert len(parts) > 1 and all(len(p) == 15 for p in parts)  # the tasks' own parts
    ids = read_table(store.view(), "games", ["game_id"]).column("game_id").to_pylist()
    assert len(ids) == len(set(ids)) == 36
    for name in ("results", "moves", "rounds"):
        assert set(read_table(store.view(), name, ["game_id"]).column("game_id").to_pylist()) == set(ids)
    assert not (ROOT / "s3:").exists() and not (tmp_path / "s3:").exists()  # no node made a local folder
