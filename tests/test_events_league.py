"""Real events of real bots (tournament/events/): each format through ``azul league run`` and
its table in ``azul standings --what event`` and the report; a Swiss killed with SIGKILL and a
knockout stopped halfway resume to exactly the uninterrupted event's records; an event's folder
is finished by ``azul league run --resume`` and resumes only as the same event."""
from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest
import yaml
from typer.testing import CliRunner

from analysis.records import read_table
from azul_cli.main import app
from test_league_support import league, subprocess_env
from tournament.errors import LeagueError
from tournament.config import parse_config
from kinds import finish_command
from tournament.runner import run_league

runner = CliRunner()
BOTS = ["random", "greedy", "heuristic", {"name": "random-2", "type": "random", "seed": 11},
        {"name": "greedy-2", "type": "greedy", "seed": 3}]
EVENTS = {"swiss": {"format": "swiss", "rounds": 3, "deals": 1},
          "knockout": {"format": "knockout", "pairs_per_match": 1},
          "gauntlet": {"format": "gauntlet", "challengers": ["heuristic"], "deals": 1}}
SKIP = {"run_id", "think_ms", "duration_s"}


def config_of(tmp, fmt, **fields):
    data = league(tmp, BOTS, name=fmt, **{"flush_seconds": 0, "batch_games": 1, **EVENTS[fmt], **fields})
    if fmt == "knockout":  # a knockout takes pairs_per_match, not deals
        data.pop("deals")
    return parse_config(data)


def rows(run_dir, name):
    """A table's rows (the event columns too), sorted, timing and run_id left out."""
    frame = read_table(run_dir, name)
    return sorted(json.dumps({k: v for k, v in r.items() if k not in SKIP}, sort_keys=True)
                  for r in frame.to_dicts())


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("whole")
    return {fmt: run_league(config_of(tmp, fmt), progress=False) for fmt in ("swiss", "knockout")}


@pytest.mark.parametrize("fmt", list(EVENTS))
def test_each_format_runs_through_the_cli_and_shows_its_table(tmp_path, fmt):
    path = tmp_path / f"{fmt}.yaml"
    path.write_text(yaml.safe_dump(league(tmp_path, BOTS, name=fmt, **EVENTS[fmt])), encoding="utf-8")
    done = runner.invoke(app, ["league", "run", str(path), "--quiet", "--no-report"])
    assert done.exit_code == 0, done.output
    total = {"swiss": 3 * 2 * 2, "knockout": 4 * 2, "gauntlet": 4 * 2}[fmt]
    assert f"{total} of {total} recorded" in done.output
    shown = runner.invoke(app, ["standings", str(tmp_path / fmt), "--what", "event", "--format", "json"])
    assert shown.exit_code == 0, shown.output
    ev = json.loads(shown.output)["events"][0]
    assert ev["format"] == fmt
    table = runner.invoke(app, ["standings", str(tmp_path / fmt), "--what", "event"])
    assert table.exit_code == 0 and f"{tmp_path / fmt}:" in "".join(table.output.split())  # which run (wrapped)
    if fmt == "swiss":
        assert [r["place"] for r in ev["rows"]] == [1, 2, 3, 4, 5]
        assert sum(r["byes"] for r in ev["rows"]) == 3  # one a round, 5 bots
        assert sum(r["points"] for r in ev["rows"]) == 3 * (2 + 1)  # two matches and a bye a round
    elif fmt == "knockout":
        assert ev["champion"] in {b if isinstance(b, str) else b["name"] for b in BOTS}
        assert [r["decided_by"] for r in ev["rows"] if r["round"] == 1].count("bye") == 3
    else:
        assert {r["pool_bot"] for r in ev["rows"]} == {"random", "greedy", "random-2", "greedy-2"}
    assert "azul league run" in finish_command(tmp_path / fmt) and "--resume" in finish_command(tmp_path / fmt)
    if fmt == "knockout":  # the bracket, drawn in the report
        report = runner.invoke(app, ["report", str(tmp_path / fmt), "--out", str(tmp_path / "report")])
        assert report.exit_code == 0, report.output
        assert 'class="bracket"' in (tmp_path / "report" / "report.html").read_text(encoding="utf-8")


def test_standings_of_a_round_robin_as_an_event_is_an_error(tmp_path):
    run_league(parse_config(league(tmp_path, BOTS[:2], name="rr", deals=1)), progress=False)
    shown = runner.invoke(app, ["standings", str(tmp_path / "rr"), "--what", "event"])
    assert shown.exit_code != 0 and "not an event" in shown.output


def test_a_knockout_stopped_halfway_resumes_to_the_same_records(tmp_path, whole):
    def stop(written):
        if written >= 3:  # round 1 is one match of 2 games (three byes): this stops in round 2
            raise KeyboardInterrupt

    first = run_league(config_of(tmp_path, "knockout"), progress=False, on_written=stop)
    assert first.interrupted and 3 <= first.recorded < whole["knockout"].recorded
    rest = run_league(config_of(tmp_path, "knockout"), progress=False, resume=True)
    assert rest.complete and first.recorded + rest.played == whole["knockout"].recorded
    for name in ("games", "results", "moves"):
        assert rows(rest.run_dir, name) == rows(whole["knockout"].run_dir, name), name


def test_a_swiss_killed_halfway_resumes_to_the_same_records(tmp_path, whole):
    """kill -9 of the driver in round 2, then --resume: the uninterrupted Swiss's records."""
    data = league(tmp_path, BOTS, name="swiss", flush_seconds=0, batch_games=1, **EVENTS["swiss"])
    script = f"""
import os, signal
from tournament.config import parse_config
from tournament.runner import run_league
def kill(written):
    if written >= 6:
        os.kill(os.getpid(), signal.SIGKILL)
run_league(parse_config({data!r}), progress=False, on_written=kill)
"""
    killed = subprocess.run([sys.executable, "-c", script], env=subprocess_env(), capture_output=True, text=True,
                            timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    kept = len(read_table(tmp_path / "swiss", "games"))
    assert 6 <= kept < whole["swiss"].recorded
    rest = run_league(config_of(tmp_path, "swiss"), progress=False, resume=True)
    assert rest.complete and rest.played == whole["swiss"].recorded - kept
    for name in ("games", "results", "moves"):
        assert rows(rest.run_dir, name) == rows(whole["swiss"].run_dir, name), name


def test_an_event_resumes_only_as_the_same_event(tmp_path):
    def stop(written):
        raise KeyboardInterrupt

    run_league(config_of(tmp_path, "swiss"), progress=False, on_written=stop)
    for fields in ({"rounds": 4}, {"deals": 2}):
        with pytest.raises(LeagueError, match="differs from the one it was started with in (rounds|deals)"):
            run_league(config_of(tmp_path, "swiss", **fields), progress=False, resume=True)
    as_round_robin = parse_config(league(tmp_path, BOTS, name="swiss", deals=1))
    with pytest.raises(LeagueError, match="format, rounds"):
        run_league(as_round_robin, progress=False, resume=True)


def test_the_python_referee_writes_an_events_rows_as_the_compiled_loop_does(tmp_path, whole):
    by_python = run_league(config_of(tmp_path, "swiss", python_referee=True), progress=False)
    assert by_python.referee == "python" and whole["swiss"].referee == "compiled"
    for name in ("games", "results", "moves"):
        assert rows(by_python.run_dir, name) == rows(whole["swiss"].run_dir, name), name


def test_a_repair_that_rewrites_a_part_keeps_the_event_columns(tmp_path):
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from records.parts import committed_parts, part_path
    from tournament.repair import repair

    summary = run_league(config_of(tmp_path, "swiss", flush_seconds=600, batch_games=12), progress=False)
    number = committed_parts(summary.run_dir)[0]
    moves = part_path(summary.run_dir, "moves", number)
    table = pq.read_table(moves)
    first = table["game_id"][0]
    pq.write_table(table.filter(pc.not_equal(table["game_id"], first)), moves)  # one game lost its moves
    report = repair(summary.run_dir)
    assert report.rewritten == [number] and report.dropped == [first.as_py()]
    games = read_table(summary.run_dir, "games")
    assert games.height == 11 and games["event_round"].null_count() == 0 and games["pairing"].null_count() == 0


def test_a_real_gauntlet_plays_the_round_robins_games_of_its_tables_and_rates_alike(tmp_path):
    from analysis.ratings import rate_by_players
    from analysis.records import read_records

    bots = ["heuristic", "greedy", {"name": "heuristic-2", "type": "heuristic", "seed": 7},
            {"name": "greedy-2", "type": "greedy", "seed": 9}]
    robin = run_league(parse_config(league(tmp_path, bots, name="rr", deals=12)), progress=False)
    gauntlet = run_league(parse_config(league(tmp_path, bots, name="ga", deals=12, format="gauntlet",
                                              challengers=["heuristic"])), progress=False)
    assert gauntlet.recorded == 3 * 12 * 2 and robin.recorded == 6 * 12 * 2
    ours = rows(gauntlet.run_dir, "results")
    assert set(ours) <= set(rows(robin.run_dir, "results"))  # the same games: tables, deals, seeds
    fits = []
    for run in (robin, gauntlet):
        records = read_records(run.run_dir)
        fits.append(rate_by_players(records["results"], records["games"], anchor="greedy", bootstrap=100)[2].table)
    both = fits[0].join(fits[1], on="bot", suffix="_g")
    for r in both.iter_rows(named=True):
        assert r["low_g"] <= r["rating"] <= r["high_g"], r  # the round-robin's rating in the gauntlet's interval
