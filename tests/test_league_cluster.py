"""A league on a multi-node Ray cluster (``ray.cluster_utils.Cluster`` on this machine: a head
with no CPUs for tasks and two worker nodes of one CPU each, every node its own raylet and
object store). Drivers run as ``azul league run --address`` in subprocesses, as on a real cluster.

- the games spread over both worker nodes, each recorded once; the compiled loop's records on
  the cluster equal one process's;
- a worker node removed in the middle of a league: the league still finishes, every game once;
- the driver killed with ``kill -9`` while the league runs on the cluster, then ``--resume``.
"""
from __future__ import annotations

import contextlib
import os
import signal
import time

import pytest

from test_league_compiled import _rows as rows
from test_league_cli import check_once_each, slow_league, start, wait_for_games, write
from test_league_support import ROOT, TESTS, bot, league
from tournament import read_table
from tournament.config import parse_config
from tournament.runner import run_league

NODE = {"num_cpus": 1, "object_store_memory": 80 * 2**20}


def add_node(c, home: str | None = None):
    """A worker node of ``NODE``'s size; with ``home``, one that works in a folder of its own, as a
    machine of its own does: its raylet (and so its workers) started in ``home``, its Ray session
    under ``home/ray``, ``TMPDIR`` and ``AZUL_S3_CACHE`` in ``home`` (nothing of another node's)."""
    if home is None:
        return c.add_node(**NODE)
    for sub in ("tmp", "cache", "ray"):
        os.makedirs(os.path.join(home, sub), exist_ok=True)
    here = os.getcwd()
    os.chdir(home)  # the raylet's working folder: the workers it starts inherit it
    try:
        return c.add_node(**NODE, temp_dir=os.path.join(home, "ray"),
                          env_vars={"TMPDIR": os.path.join(home, "tmp"), "AZUL_S3_CACHE": os.path.join(home, "cache")})
    finally:
        os.chdir(here)


@contextlib.contextmanager
def three_nodes(homes: list[str] | None = None):
    """A head (no task CPUs) and two worker nodes, started with this process's environment; their
    workers can import tests/ modules. ``homes``: each worker node's own work folder (``add_node``).
    Yields the cluster and its worker nodes."""
    paths = [str(TESTS), str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    from ray.cluster_utils import Cluster

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "object_store_memory": 80 * 2**20,
                                                      "include_dashboard": False})
    try:
        nodes = [add_node(c, home) for home in (homes or [None, None])]
        c.wait_for_nodes()
        yield c, nodes
    finally:
        c.shutdown()


@pytest.fixture(scope="module")
def cluster():
    with three_nodes() as made:
        yield made


def finish(config, address: str, *extra: str, timeout: float = 240) -> str:
    proc = start(config, address, *extra)
    out, _ = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, out
    return out


def test_a_league_spreads_over_the_nodes(tmp_path, cluster):
    c, nodes = cluster
    marks = tmp_path / "marks"
    marks.mkdir()
    data = league(tmp_path / "out", [bot("here", "NodeBot", marks=str(marks), seconds=0.002), "random",
                                     "greedy"], name="spread", deals=6, batch_games=1, ray={"workers": 2})
    config, run_dir = write(tmp_path, data), tmp_path / "out" / "spread"
    finish(config, c.address)
    check_once_each(run_dir, 36)
    assert {p.name for p in marks.glob("[!.]*")} == {n.node_id for n in nodes}  # both nodes, never the head


def test_the_compiled_loop_on_the_cluster_writes_one_processs_records(tmp_path, cluster):
    c, _ = cluster
    bots = ["random", "greedy", "heuristic"]
    data = league(tmp_path / "out", bots, name="fast", deals=20, batch_games=7, ray={"workers": 2})
    config, run_dir = write(tmp_path, data), tmp_path / "out" / "fast"
    finish(config, c.address)
    serial = run_league(parse_config(league(tmp_path / "serial", bots, name="fast", deals=20)), progress=False)
    for name in ("games", "results", "moves", "rounds"):
        assert rows(run_dir, name) == rows(serial.run_dir, name), name


@pytest.mark.parametrize("writer", ["driver", "workers"])
def test_a_worker_node_removed_mid_league(tmp_path, cluster, writer):
    """Tasks on the lost node are played again elsewhere; with ``write: workers`` a task that had
    committed its part before the node went keeps it, and no game is recorded twice."""
    c, nodes = cluster
    config, run_dir = slow_league(tmp_path, f"lost-{writer}", writer)
    proc = start(config, c.address)
    wait_for_games(proc, run_dir)
    c.remove_node(nodes[1], allow_graceful=False)  # its raylet and workers killed
    assert len(read_table(run_dir, "games", ["game_id"])) < 36  # games were left to play
    nodes[1] = c.add_node(**NODE)  # (for the tests after this one) a fresh node joins
    out, _ = proc.communicate(timeout=240)
    assert proc.returncode == 0, out
    assert "36 of 36 recorded" in out
    check_once_each(run_dir, 36)


@pytest.mark.parametrize("writer", ["driver", "workers"])
def test_driver_killed_on_the_cluster_then_resume(tmp_path, cluster, writer):
    c, _ = cluster
    config, run_dir = slow_league(tmp_path, f"k9-{writer}", writer)
    proc = start(config, c.address)
    wait_for_games(proc, run_dir)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    done = len(read_table(run_dir, "games", ["game_id"]))
    assert 0 < done < 36
    time.sleep(1)  # the dead driver's tasks are cancelled by Ray with its job
    out = finish(config, c.address, "--resume")
    assert f"{36 - done} games played" in out and "36 of 36 recorded" in out
    check_once_each(run_dir, 36)
