"""``azul league run --out s3://...`` and the readers over a run on object storage, against a real S3
server (SeaweedFS, tests/s3_server.py): the same records, ratings and report as the league written
to a folder; a second driver refused; --resume after a kill -9 of the driver; a damaged part
repaired; neither the endpoint nor the credentials in any object, log line or the MLflow store."""
from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from s3_server import s3_env, s3_server  # noqa: F401 (fixtures)
from test_league_support import subprocess_env
from typer.testing import CliRunner

from azul_cli.main import app
from records.columns import TABLES
from records.names import ELO_CSV
from records.read import read_table
from records.store import open_store

BOTS = ["greedy", "random", {"name": "greedy2", "type": "greedy", "seed": 3}]


@pytest.fixture
def out(s3_env, tmp_path, monkeypatch):  # noqa: F811
    """An ``s3://`` out of the test's own; the view cache and the working folder in tmp_path."""
    monkeypatch.setenv("AZUL_S3_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return f"s3://{s3_env.bucket}/t-{uuid.uuid4().hex[:12]}/runs"


def config(tmp_path: Path, mlflow: bool = False, **fields) -> Path:
    data = {"name": "s3l", "players": 2, "deals": 3, "seed": 11, "bots": BOTS, "ray": {"workers": 0},
            "mlflow": {"enabled": mlflow}, "flush_seconds": 0, "batch_games": 2, **fields}
    path = tmp_path / "league.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def azul(*args: str):
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result


def rows(run, table: str) -> list[dict]:
    """A table's rows without what differs between two plays of one league (timings, the run id)."""
    t = read_table(run, table)
    drop = [c for c in ("run_id", "duration_s", "think_ms") if c in t.column_names]
    return sorted(t.drop(drop).to_pylist(), key=lambda r: json.dumps(r, sort_keys=True, default=str))


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """The same league written to a local folder (the reference), with its report."""
    folder = tmp_path_factory.mktemp("local")
    result = azul("league", "run", config(folder), "--out", folder, "--quiet")
    assert result.exit_code == 0, result.output
    return folder / "s3l"


def test_a_league_to_s3_reads_as_the_same_league_written_locally(tmp_path, out, local_run, s3_env):  # noqa: F811
    path = config(tmp_path, mlflow=True)
    result = azul("league", "run", path, "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    run = f"{out}/s3l"
    assert f"records: {run}/" in result.output and "18 of 18 recorded" in result.output
    store = open_store(run)
    assert store.committed() and not store.objects.entries("_staged/")
    assert not store.exists(".lock")  # given back
    view = store.view()
    for table in TABLES:
        assert rows(view, table) == rows(local_run, table), table
    # the readers over the URL (typer's Path makes it s3:/...): the same numbers as the folder's
    for command in (["elo", "--format", "json"], ["standings", "--format", "json"]):
        there, here = azul(*command, run), azul(*command, local_run)
        assert there.exit_code == 0 and here.exit_code == 0, there.output
        assert there.output == here.output
    assert store.read_text(ELO_CSV) == (local_run / ELO_CSV).read_text()  # the league's report, in the store
    store.remove(ELO_CSV)
    report = azul("report", run)
    assert report.exit_code == 0, report.output
    assert f"wrote {run}/{ELO_CSV}" in report.output
    assert store.read_text(ELO_CSV) == (local_run / ELO_CSV).read_text()
    status = azul("league", "status", run)
    assert status.exit_code == 0 and "18 of 18" in status.output, status.output
    replay = azul("replay", run, read_table(view, "games", ["game_id"]).column("game_id")[0].as_py())
    assert replay.exit_code == 0, replay.output
    # no endpoint nor credential anywhere: objects, output, MLflow's store and its artifacts
    secrets = [s3_env.secret_key, s3_env.access_key, s3_env.endpoint, s3_env.endpoint.split("//")[1]]
    for name in store.objects.entries(""):
        data = store.objects.get(name)[0]
        assert not any(s.encode() in data for s in secrets), name
    for text in (result.output, report.output, status.output):
        assert not any(s in text for s in secrets)
    db = tmp_path / "mlflow.db"  # a URL's out: the local default
    assert db.exists() and not (tmp_path / "s3:").exists()
    with sqlite3.connect(db) as con:
        dump = "\n".join(con.iterdump())
    assert run in dump and not any(s in dump for s in secrets)
    for file in (tmp_path / "mlartifacts").rglob("*"):
        if file.is_file():
            assert not any(s.encode() in file.read_bytes() for s in secrets), file


def test_a_second_driver_is_refused_and_resume_and_fresh_work(tmp_path, out):
    path = config(tmp_path)
    run = f"{out}/s3l"
    store = open_store(run)
    with store.lock():
        refused = azul("league", "run", path, "--out", out, "--quiet", "--no-report")
    assert refused.exit_code == 1 and "another driver (pid" in refused.output and "is writing this run" in refused.output
    assert not store.committed()
    first = azul("league", "run", path, "--out", out, "--quiet", "--no-report")
    assert first.exit_code == 0, first.output
    again = azul("league", "run", path, "--out", out, "--quiet", "--no-report")
    assert again.exit_code == 1 and "add --resume" in again.output
    resumed = azul("league", "run", path, "--out", out, "--quiet", "--no-report", "--resume")
    assert resumed.exit_code == 0 and "0 games played" in resumed.output, resumed.output
    (tmp_path / "other").mkdir()
    other = azul("league", "run", config(tmp_path / "other", seed=12), "--out", out, "--quiet", "--no-report", "--resume")
    assert other.exit_code == 1 and f"cannot resume {run}: the config differs" in other.output, other.output
    parts = store.committed()
    fresh = azul("league", "run", path, "--out", out, "--quiet", "--no-report", "--fresh")
    assert fresh.exit_code == 0 and "18 of 18 recorded" in fresh.output
    assert len(read_table(store.view(), "games")) == 18 and store.committed() == parts


def test_a_damaged_part_is_repaired_then_resume_plays_its_games_again(tmp_path, out, local_run, monkeypatch):
    path = config(tmp_path)
    run = f"{out}/s3l"
    assert azul("league", "run", path, "--out", out, "--quiet", "--no-report").exit_code == 0
    store = open_store(run)
    damaged = store.committed()[1]
    store.objects.put(f"moves/part-{damaged}.parquet", b"PAR1 not a part")
    store.objects.put(f"_staged/{999999}.0/games.parquet", b"a half-written part")  # a killed writer's
    monkeypatch.setenv("AZUL_S3_CACHE", str(tmp_path / "cache2"))  # a reader that never downloaded it
    elo = azul("elo", run)
    assert elo.exit_code == 1 and f"{run}/moves/part-{damaged}.parquet: its bytes are not" in elo.output
    assert f"azul league repair {run}" in elo.output
    repaired = azul("league", "repair", run)
    assert repaired.exit_code == 0, repaired.output
    assert f"quarantine/moves/part-{damaged}.parquet" in repaired.output
    # the finish command names the run (its out and name) and where the config that started it is kept
    assert f"azul league run CONFIG --out {out} --name s3l --resume (CONFIG: the league config that started " \
           f"it, as {run}/config.yaml keeps it)" in " ".join(repaired.output.split()), repaired.output
    assert store.objects.get(f"quarantine/moves/part-{damaged}.parquet")[0] == b"PAR1 not a part"
    assert damaged not in store.committed() and not store.objects.entries("_staged/")
    resumed = azul("league", "run", path, "--out", out, "--quiet", "--no-report", "--resume")
    assert resumed.exit_code == 0 and "18 of 18 recorded" in resumed.output, resumed.output
    for table in TABLES:
        assert rows(store.view(), table) == rows(local_run, table), table


def test_kill_9_of_the_driver_then_resume_records_every_game_once(tmp_path, out, local_run, s3_env):  # noqa: F811
    data = yaml.safe_load(config(tmp_path).read_text())
    data["out"] = out
    script = f"""
import os, signal
from tournament.config import parse_config
from tournament.runner import run_league
def kill(written):
    if written >= 6:
        os.kill(os.getpid(), signal.SIGKILL)
run_league(parse_config({data!r}), progress=False, on_written=kill)
"""
    env = {**subprocess_env(), **s3_env.env(), "AZUL_S3_CACHE": str(tmp_path / "cache")}
    killed = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    store = open_store(f"{out}/s3l")
    assert store.holder() is None  # its process is gone: the lock is free to this host at once
    kept = len(read_table(store.view(), "games"))
    assert 6 <= kept < 18
    resumed = azul("league", "run", config(tmp_path), "--out", out, "--quiet", "--no-report", "--resume")
    assert resumed.exit_code == 0 and f"{18 - kept} games played" in resumed.output, resumed.output
    ids = read_table(store.view(), "games", ["game_id"]).column("game_id").to_pylist()
    assert len(ids) == len(set(ids)) == 18
    for table in TABLES:
        assert rows(store.view(), table) == rows(local_run, table), table
    assert pq.read_table(store.part_files("games")[0]).num_rows > 0


def test_ray_tasks_write_their_own_parts_to_s3(tmp_path, out, local_run, s3_env):  # noqa: F811
    """``ray.write: workers``: each task commits its part to the store itself (no node needs the
    driver's disk); the records are the league's, each game once. The command runs as a user runs
    it, its own local Ray inheriting the AWS settings of its environment."""
    path = config(tmp_path, ray={"workers": 2, "write": "workers"})
    env = {**subprocess_env(), **s3_env.env(), "AZUL_S3_CACHE": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-m", "azul_cli", "league", "run", str(path), "--out", out,
                             "--quiet", "--no-report"], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and "18 of 18 recorded" in result.stdout, result.stdout + result.stderr
    store = open_store(f"{out}/s3l")
    parts = store.committed()
    assert len(parts) > 1 and all(len(p) == 15 for p in parts)  # NNNNNN-TTTTTTTT: the tasks' parts
    assert not store.objects.entries("_staged/")
    ids = read_table(store.view(), "games", ["game_id"]).column("game_id").to_pylist()
    assert len(ids) == len(set(ids)) == 18
    for table in TABLES:
        assert rows(store.view(), table) == rows(local_run, table), table


def test_a_retried_task_and_a_killed_drivers_late_task_on_s3(out, local_run):
    """A task tried twice commits its part once; a task of a killed driver that commits late keeps
    its own part beside the resumed driver's of the same number (their tokens differ)."""
    import pyarrow.parquet as pq

    from records.parts import part_path
    from records.writer import BufferedWriter, read_committed
    from tournament.backends import _recorded
    from tournament.repair import repair

    first, second = ({name: pq.read_table(part_path(local_run, name, n)) for name in TABLES} for n in (1, 2))
    store = open_store(f"{out}/race")
    orphan = BufferedWriter(store, 1.0, None).reserve()  # the killed driver's task plays on
    mine = BufferedWriter(store, 1.0, None).reserve()  # the resumed driver's: nothing committed yet
    assert orphan[:6] == mine[:6] and orphan != mine
    for _ in range(2):  # the second try of the task finds its part committed: no second copy
        assert _recorded(second, (str(store), mine)).part == mine
    _recorded(first, (str(store), orphan))  # the orphaned task commits late
    assert store.committed() == sorted([orphan, mine]) and not store.objects.entries("_staged/")
    ids = sorted(read_table(store.view(), "games", ["game_id"]).column("game_id").to_pylist())
    assert ids == sorted(first["games"].column("game_id").to_pylist() + second["games"].column("game_id").to_pylist())
    assert read_committed(store, mine).tables["games"].num_rows == second["games"].num_rows
    assert read_committed(store, "000009-00000000") is None
    assert not repair(store).changed  # nothing orphaned, nothing twice
