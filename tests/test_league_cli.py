"""``azul league run`` and ``status`` through the CLI; kill -9, Ctrl-C and --resume; MLflow."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from azul_cli.main import app
from test_league_support import ROOT, bot, league, ray_address, subprocess_env  # noqa: F401
from records.read import done_game_ids
from tournament import TABLES, read_table
from tournament.config import parse_config
from tournament.runner import run_league

runner = CliRunner()


def write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / f"{data['name']}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_run_and_status(tmp_path):
    config = write(tmp_path, league(tmp_path / "out", ["random", "greedy", bot("bad", "RaisingBot", after=5)],
                                    name="cli", deals=2))
    result = runner.invoke(app, ["league", "run", str(config), "--quiet"])
    # bad forfeited every one of its games: the league is complete, but the exit status says so
    assert result.exit_code == 1, result.output
    assert "error: a bot forfeited every game: bad (8 of 8)" in result.output
    run_dir = tmp_path / "out" / "cli"
    assert f"records: {run_dir}/" in result.output
    assert "12 of 12 recorded; failures: 8 error" in result.output
    assert re.search(r"1\s+greedy\s+8\s+100.0%", result.output), result.output
    status = runner.invoke(app, ["league", "status", str(run_dir)])
    assert status.exit_code == 0, status.output
    assert "12 of 12 games recorded, complete" in status.output and "failures: 8 error" in status.output
    again = runner.invoke(app, ["league", "run", str(config)])
    assert again.exit_code == 1 and "add --resume to finish it" in again.output
    other = runner.invoke(app, ["league", "run", str(config), "--out", str(tmp_path / "elsewhere"), "--quiet"])
    assert other.exit_code == 1 and (tmp_path / "elsewhere" / "cli" / "games").is_dir()


def test_the_progress_bar_draws_the_leagues_reports(tmp_path):
    config = write(tmp_path, league(tmp_path / "out", ["random", "greedy"], name="bar", deals=2))
    # not a terminal: plain lines, the first report and the last (the next ones come 10 s apart)
    result = runner.invoke(app, ["league", "run", str(config), "--workers", "0", "--no-report"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("league bar ") and "/4 " in line]
    assert lines[0] == "league bar (compiled): 0/4 games", lines
    assert re.fullmatch(r"league bar \(compiled\): 4/4 games, [\d,.]+ games/(s|min), leader: greedy \(\d+% wins\)",
                        lines[-1]), lines
    assert "━" not in result.output
    quiet = runner.invoke(app, ["league", "run", str(config), "--fresh", "--workers", "0", "--no-report", "-q"])
    assert quiet.exit_code == 0 and "4/4" not in quiet.output


def test_rates_read_well():
    from azul_cli.league import rate_text

    assert rate_text(1200, 30.0) == "40.0 games/s"
    assert rate_text(30, 891.5) == "2.0 games/min"
    assert rate_text(3, 600.0) == "200 s/game"
    assert rate_text(0, 5.0) == ""


def test_output_errors_are_one_line(tmp_path, monkeypatch):
    import errno

    import pyarrow.parquet as pq

    from tournament.run_folder import _locked

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    config = write(tmp_path, league(tmp_path / "out", ["random", "greedy"], name="io", deals=2))
    under_a_file = runner.invoke(app, ["league", "run", str(config), "--out", str(blocker), "-q"])
    assert under_a_file.exit_code == 1 and "Traceback" not in under_a_file.output
    assert re.search(rf"error: {re.escape(str(blocker))}\S*: Not a directory", under_a_file.output)

    def full(table, where, **kw):
        raise OSError(errno.ENOSPC, "No space left on device", str(where))

    with monkeypatch.context() as m:  # the disk fills during the league (tests run as root: no chmod)
        m.setattr(pq, "write_table", full)
        result = runner.invoke(app, ["league", "run", str(config), "-q", "--no-report"])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert re.search(r"error: \S+\.tmp: No space left on device; the records written so far are intact",
                     result.output), result.output
    run_dir = tmp_path / "out" / "io"
    with monkeypatch.context() as m:  # a read-only run folder, then --resume
        m.setattr(pq, "write_table", lambda *a, **k: (_ for _ in ()).throw(
            PermissionError(errno.EACCES, "Permission denied", str(run_dir / "games"))))
        result = runner.invoke(app, ["league", "run", str(config), "-q", "--resume", "--no-report"])
    assert result.exit_code == 1 and f"error: {run_dir / 'games'}: Permission denied" in result.output
    finished = runner.invoke(app, ["league", "run", str(config), "-q", "--resume", "--no-report"])
    assert finished.exit_code == 0 and "4 of 4 recorded" in finished.output, finished.output
    with _locked(run_dir):  # another driver holds the run
        status = runner.invoke(app, ["league", "status", str(run_dir)])
    assert status.exit_code == 0 and f"being played now by a driver (pid {os.getpid()})" in status.output
    assert "--resume" not in status.output


def test_a_second_ctrl_c_says_the_records_are_intact(tmp_path, monkeypatch):
    import tournament.runner

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(tournament.runner, "run_league", interrupted)
    config = write(tmp_path, league(tmp_path / "out", ["random", "greedy"], name="cc", deals=2))
    result = runner.invoke(app, ["league", "run", str(config), "-q"])
    assert result.exit_code == 130
    assert "stopped at once: the records written so far are intact" in result.output


def test_run_league_reports_progress_and_prints_nothing(tmp_path, capsys):
    events = []
    summary = run_league(parse_config(league(tmp_path, ["random", "greedy"], name="quiet", deals=3)),
                         progress=events.append)
    assert summary.complete and capsys.readouterr() == ("", "")
    assert events[0].played == 0 and events[0].recorded == 0 and events[0].total == 6
    assert [e.recorded for e in events] == sorted(e.recorded for e in events)
    assert events[-1].recorded == events[-1].played == 6 and events[-1].name == "quiet"
    assert events[-1].leader is not None and events[-1].rate > 0


def test_cli_errors(tmp_path):
    bad = write(tmp_path, {"name": "bad", "bots": [{"type": "nosuchbot"}, {"type": "random"}]})
    result = runner.invoke(app, ["league", "run", str(bad)])
    assert result.exit_code == 1
    assert "error: " in result.output and "bots[0].type: unknown bot type 'nosuchbot'" in result.output
    assert "Traceback" not in result.output
    result = runner.invoke(app, ["league", "run", str(bad), "--resume", "--fresh"])
    assert result.exit_code == 1 and "choose one" in result.output
    result = runner.invoke(app, ["league", "status", str(tmp_path)])
    assert result.exit_code == 1 and "not a league run" in result.output
    result = runner.invoke(app, ["league", "run", str(tmp_path / "missing.yaml")])
    assert result.exit_code == 1 and "no such file" in result.output


def test_mlflow_run_per_league(tmp_path):
    from mlflow.tracking import MlflowClient

    data = league(tmp_path, ["random", "greedy"], name="ml", deals=2, mlflow={"enabled": True})
    summary = run_league(parse_config(data), progress=False)
    assert summary.mlflow_run_id
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    run = client.get_run(summary.mlflow_run_id)
    assert run.data.params["bots.0.type"] == "random" and run.data.params["deals"] == "2"
    assert run.data.metrics["games"] == 4
    assert {"random.elo", "greedy.elo", "greedy.win_rate"} <= set(run.data.metrics)
    assert {a.path for a in client.list_artifacts(run.info.run_id)} >= {"config.yaml", "standings.csv"}
    assert (tmp_path / "mlartifacts").is_dir()  # artifacts beside the database, not in the cwd
    again = run_league(parse_config(data), progress=False, resume=True)
    assert again.mlflow_run_id == summary.mlflow_run_id  # one run per league
    experiment = client.get_experiment_by_name("azul-league")
    assert len(client.search_runs([experiment.experiment_id])) == 1


def test_an_mlflow_failure_leaves_the_league_intact(tmp_path):
    data = league(tmp_path, ["random", "greedy"], name="ml", deals=1,
                  mlflow={"enabled": True, "tracking_uri": "nosuchscheme://nowhere"})
    summary = run_league(parse_config(data), progress=False)
    assert summary.complete and summary.mlflow_run_id is None and summary.mlflow_error
    assert (summary.run_dir / "standings.csv").exists()


def slow_league(tmp_path: Path, name: str, write_parts: str = "driver") -> tuple[Path, Path]:
    """36 games of about a quarter second, one a task: a config file and its run folder."""
    data = league(tmp_path / "out", [bot("slow", "SlowBot", seconds=0.01), "random", "greedy"], name=name,
                  deals=6, flush_seconds=0.1, batch_games=1, ray={"workers": 2, "write": write_parts})
    return write(tmp_path, data), tmp_path / "out" / name


def start(config: Path, address: str, *extra: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "azul_cli", "league", "run", str(config), "--address", address, "--quiet",
           *extra]
    return subprocess.Popen(cmd, cwd=ROOT, env=subprocess_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def wait_for_games(proc: subprocess.Popen, run_dir: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if list((run_dir / "games").glob("part-*.parquet")):
            return
        if proc.poll() is not None:
            pytest.fail(f"the league ended before it could be stopped:\n{proc.stdout.read()}")
        time.sleep(0.05)
    proc.kill()
    pytest.fail(f"no games written in {timeout} s:\n{proc.stdout.read()}")


def check_once_each(run_dir: Path, total: int) -> Counter:
    ids = Counter(read_table(run_dir, "games", ["game_id"]).column("game_id").to_pylist())
    assert len(ids) == total and set(ids.values()) == {1}
    for name in ("results", "moves", "rounds"):
        assert set(read_table(run_dir, name, ["game_id"]).column("game_id").to_pylist()) == set(ids)
    return ids


def test_kill_9_halfway_then_resume(tmp_path, ray_address):
    config, run_dir = slow_league(tmp_path, "k9")
    proc = start(config, ray_address)
    wait_for_games(proc, run_dir)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    for name in TABLES:  # the records read cleanly right after the kill
        read_table(run_dir, name)
        pd.read_parquet(run_dir / name)
    before = read_table(run_dir, "results").to_pylist()
    done = done_game_ids(run_dir)
    assert 0 < len(done) < 36
    proc = start(config, ray_address, "--resume")
    out, _ = proc.communicate(timeout=180)
    assert proc.returncode == 0, out
    assert f"{36 - len(done)} games played" in out and "36 of 36 recorded" in out
    check_once_each(run_dir, 36)
    after = {(r["game_id"], r["seat"]): r for r in read_table(run_dir, "results").to_pylist()}
    assert all(after[r["game_id"], r["seat"]] == r for r in before)  # finished games untouched


def test_ctrl_c_stops_cleanly_then_resume(tmp_path, ray_address):
    config, run_dir = slow_league(tmp_path, "cc")
    proc = start(config, ray_address)
    wait_for_games(proc, run_dir)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, out
    assert "stopped: " in out and "--resume finishes the league" in out
    assert not list(run_dir.glob("*/.part-*"))  # no temporary file left behind
    done = done_game_ids(run_dir)
    recorded = int(re.search(r"stopped: (\d+) of 36", out).group(1))
    assert 0 < len(done) == recorded < 36
    for name in TABLES:
        pd.read_parquet(run_dir / name)
    data = yaml.safe_load(config.read_text())
    summary = run_league(parse_config(data), resume=True, progress=False)
    assert summary.complete and summary.played == 36 - len(done)
    check_once_each(run_dir, 36)


def test_league_is_a_sub_app_of_azul():
    result = runner.invoke(app, ["league", "--help"])
    assert result.exit_code == 0 and "run" in result.output and "status" in result.output
    result = runner.invoke(app, ["league", "run", "--help"])
    for option in ("--out", "--address", "--workers", "--resume"):
        assert option in result.output
