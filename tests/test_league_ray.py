"""Leagues through Ray: the same records as in one process, workers that die, bots that misbehave."""
from __future__ import annotations

from collections import Counter

import pytest

from test_league_compiled import _rows  # rows of a table, sorted, timing and run_id left out
from test_league_support import bot, league, ray_address  # noqa: F401  (a session fixture)
from tournament import read_table
from tournament.config import parse_config
from tournament.runner import run_league


def run(data, **kw):
    return run_league(parse_config(data), progress=False, **kw)


def once_each(summary) -> Counter:
    ids = Counter(read_table(summary.run_dir, "games", ["game_id"]).column("game_id").to_pylist())
    assert len(ids) == summary.total and set(ids.values()) == {1}, ids.most_common(3)
    for name in ("results", "moves", "rounds"):
        assert set(read_table(summary.run_dir, name, ["game_id"]).column("game_id").to_pylist()) <= set(ids)
    return ids


def test_ray_plays_the_same_games_as_one_process(tmp_path, ray_address):
    names = ["random", "greedy", "heuristic"]
    serial = run(league(tmp_path / "serial", names, deals=6))
    ray_run = run(league(tmp_path / "ray", names, deals=6, ray={"workers": 2}, batch_games=3))
    assert ray_run.complete and ray_run.recorded == serial.recorded == 36
    once_each(ray_run)
    for name in ("games", "results", "moves", "rounds"):
        assert _rows(ray_run.run_dir, name) == _rows(serial.run_dir, name), name
    assert [r.as_dict() for r in ray_run.standings] == [r.as_dict() for r in serial.standings]


def test_workers_that_write_their_own_parts_write_the_drivers_records(tmp_path, ray_address):
    """ray.write: workers: each task commits its own part; the same rows as one process writes."""
    names = ["random", "greedy", "heuristic"]
    serial = run(league(tmp_path / "serial", names, deals=6))
    ray_run = run(league(tmp_path / "ray", names, deals=6, ray={"workers": 2, "write": "workers"}, batch_games=5))
    assert ray_run.complete and ray_run.recorded == 36
    once_each(ray_run)
    parts = sorted(p.name for p in (ray_run.run_dir / "games").glob("part-*.parquet"))
    assert len(parts) >= 36 // 5  # a part per task (the last ones are sized down), none from the driver
    for name in ("games", "results", "moves", "rounds"):
        assert _rows(ray_run.run_dir, name) == _rows(serial.run_dir, name), name
    assert [r.as_dict() for r in ray_run.standings] == [r.as_dict() for r in serial.standings]


@pytest.mark.parametrize("write", ["driver", "workers"])
@pytest.mark.parametrize("retries", [3, 0])  # 3: Ray plays the task again; 0: the driver resubmits its games
def test_a_dead_worker_is_retried(tmp_path, ray_address, write, retries):
    marker = tmp_path / "killed"
    data = league(tmp_path, [bot("killer", "KillWorkerOnceBot", marker=str(marker)), "random"], deals=3,
                  ray={"workers": 2, "write": write}, batch_games=2)
    summary = run(data, task_retries=retries)
    assert marker.exists()  # a worker did die
    assert summary.complete and summary.failures == {}
    once_each(summary)


def test_a_game_that_always_kills_its_worker_is_recorded_as_an_error(tmp_path, ray_address):
    data = league(tmp_path, [bot("killer", "AlwaysKillBot"), "random"], deals=1,
                  ray={"workers": 2}, batch_games=2)
    summary = run(data, task_retries=0, resubmits=1)
    assert summary.complete and summary.failures == {"error": 2}
    games = read_table(summary.run_dir, "games").to_pylist()
    assert all("worker playing this game died 2 times" in g["error"] for g in games)
    assert {r["rank"] for r in read_table(summary.run_dir, "results").to_pylist()} == {2}
    once_each(summary)


def test_bot_faults_inside_workers(tmp_path, ray_address):
    data = league(tmp_path, [bot("spin", "SpinBot"), bot("raiser", "RaisingBot", after=4), "greedy"],
                  deals=1, time_limit=0.3, ray={"workers": 2}, batch_games=1)
    summary = run(data)
    assert summary.complete
    games = read_table(summary.run_dir, "games").to_pylist()
    kinds = Counter(g["termination"] for g in games)
    # spin times out in its 4 games (against raiser too: raiser misbehaves from its 4th move only);
    # raiser raises in its 2 games with greedy; greedy never fails
    assert kinds == {"timeout": 4, "error": 2}
    assert all(g["duration_s"] < 5 for g in games)
    rows = {r.bot: r for r in summary.standings}
    assert rows["greedy"].faults == 0 and rows["greedy"].wins == 4
