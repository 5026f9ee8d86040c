"""An event stopped in the middle of a round: ``azul league status`` shows the event's table of
its whole pairings only, as the finished event's table counts them, and says how many games of
unfinished pairings it leaves out (kinds/league.py ``finished_pairings``)."""
from __future__ import annotations

from collections import Counter

from typer.testing import CliRunner

from analysis.records import read_records
from azul_cli.main import app
from test_events_league import BOTS, config_of
from tournament.runner import run_league

runner = CliRunner()
NAMES = [b if isinstance(b, str) else b["name"] for b in BOTS]


def event_rows(output: str) -> dict[str, list[str]]:
    """The Swiss table's rows by bot (#, bot, points, Buchholz, S-B, game pts, rounds, byes, games)."""
    rows = {}
    for line in output.splitlines():
        cells = line.split()
        if len(cells) == 9 and cells[1] in NAMES:
            rows[cells[1]] = cells
    return rows


def test_status_of_a_swiss_stopped_mid_round_counts_whole_pairings_only(tmp_path):
    def stop(written):
        if written >= 5:  # round 1: two pairings of 2 games (and a bye); this stops in round 2's first
            raise KeyboardInterrupt

    first = run_league(config_of(tmp_path, "swiss"), progress=False, on_written=stop)
    assert first.interrupted
    games = read_records(first.run_dir)["games"]
    sizes = Counter(zip(games["event_round"].to_list(), games["pairing"].to_list()))
    whole = [p for p, n in sizes.items() if n == 2]
    half = [p for p, n in sizes.items() if n < 2]
    assert len(half) == 1 and sizes[half[0]] == 1, sizes  # one pairing of round 2 half played

    shown = runner.invoke(app, ["league", "status", str(first.run_dir)], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    rows = event_rows(shown.output)
    assert sorted(rows) == sorted(NAMES), shown.output
    assert sum(int(r[8]) for r in rows.values()) == 2 * 2 * len(whole)  # games: 2 bots x 2 games a whole pairing
    assert sum(int(r[6]) for r in rows.values()) == 2 * len(whole)  # rounds at a table
    assert sum(float(r[2]) for r in rows.values()) == len(whole) + sum(int(r[7]) for r in rows.values())
    assert "1 game of 1 unfinished pairing" in " ".join(shown.output.split())


def test_status_of_a_knockout_stopped_mid_match_decides_no_match_on_part_of_it(tmp_path):
    def stop(written):
        raise KeyboardInterrupt  # after round 1's first game: its one match (three byes) is half played

    first = run_league(config_of(tmp_path, "knockout"), progress=False, on_written=stop)
    assert first.interrupted and first.recorded == 1
    shown = runner.invoke(app, ["league", "status", str(first.run_dir)], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    match = next(line.split() for line in shown.output.splitlines() if "random-2 - greedy-2" in line)
    assert match == ["1", "2", "random-2", "-", "greedy-2"]  # no games won, score, winner: not decided yet
    assert not [line for line in shown.output.splitlines() if line.split()[:1] == ["2"] and " - " in line]  # no round 2
    assert "1 game of 1 unfinished pairing (round 1 pairing 2: 1 of 2 games)" in " ".join(shown.output.split())
