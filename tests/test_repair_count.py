"""``azul league repair`` counts what it removes (issue 42, item 4): the games it says are no
longer recorded are exactly the games ``azul league status`` then shows missing, also when a
part's ``games`` table is unreadable (its games named by the part's other tables); and a run
nested in another (a training run's league) is not repaired while the driver of the run above it
is playing (issue 42, item 6)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from azul_cli.main import app
from records.parts import part_path
from test_league_support import finished_in_parts, subprocess_env

runner = CliRunner()


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished league of 12 games in parts of 2 (part-000000 .. part-000005)."""
    run_dir = finished_in_parts(tmp_path_factory.mktemp("count"), "cnt")
    assert part_path(run_dir, "games", 5).exists()
    return run_dir


def counts(run_dir: Path) -> tuple[int, int]:
    """(recorded, planned) as ``azul league status`` prints them."""
    status = runner.invoke(app, ["league", "status", str(run_dir)])
    assert status.exit_code == 0, status.output
    recorded, planned = re.search(r"([\d,]+) of ([\d,]+) games recorded", status.output).groups()
    return int(recorded.replace(",", "")), int(planned.replace(",", ""))


def overwrite_inside(p: Path, size: int = 200) -> None:
    """``size`` bytes overwritten in the middle of the file (its footer intact)."""
    data = bytearray(p.read_bytes())
    start = len(data) // 2 - size // 2
    data[start:start + size] = bytes(b ^ 0xFF for b in data[start:start + size])
    p.write_bytes(bytes(data))


def test_repair_says_as_many_games_no_longer_recorded_as_status_then_misses(finished, tmp_path):
    run_dir = tmp_path / "cnt"
    shutil.copytree(finished, run_dir)
    part_path(run_dir, "games", 4).write_bytes(os.urandom(3000))  # garbage over a whole games part
    overwrite_inside(part_path(run_dir, "results", 3))  # damage inside a results part
    repaired = runner.invoke(app, ["league", "repair", str(run_dir)])
    assert repaired.exit_code == 0, repaired.output
    said = int(re.search(r"([\d,]+) games no longer recorded", repaired.output).group(1).replace(",", ""))
    recorded, planned = counts(run_dir)
    assert recorded == 8 and said == planned - recorded == 4, repaired.output  # parts 3 and 4: 2 games each


def test_repair_names_the_games_of_an_unreadable_games_part(finished, tmp_path):
    run_dir = tmp_path / "cnt"
    shutil.copytree(finished, run_dir)
    games = part_path(run_dir, "games", 2)
    ids = set(__import__("pyarrow.parquet", fromlist=["x"]).read_table(games, columns=["game_id"])
              .column("game_id").to_pylist())
    games.write_bytes(b"PAR1 garbage, not a part")
    from tournament.repair import repair

    report = repair(run_dir)
    assert set(report.dropped) == ids and len(ids) == 2
    recorded, planned = counts(run_dir)
    assert planned - recorded == len(report.dropped)


HOLD = """
import sys, time
from pathlib import Path
from records.folder import take_lock
fd = take_lock(Path(sys.argv[1]))
print("held", flush=True)
time.sleep(60)
"""


def test_a_nested_run_is_not_repaired_while_the_driver_above_it_plays(finished, tmp_path):
    train = tmp_path / "tr"
    nested = train / "gen-001" / "selfplay"
    shutil.copytree(finished, nested)
    (train / "run.json").write_text('{"run_id": "tr-1", "kind": "train"}\n')
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(train)], stdout=subprocess.PIPE,
                              env=subprocess_env(), text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        refused = runner.invoke(app, ["league", "repair", str(nested)])
        assert refused.exit_code == 1, refused.output
        assert f"the run that holds it, {train}, is being played by a driver (pid {holder.pid})" \
            in refused.output and "nothing to repair" not in refused.output, refused.output
        from tournament.run_folder import repair_run

        with pytest.raises(Exception, match=f"pid {holder.pid}"):  # the library's door too
            repair_run(nested)
    finally:
        holder.kill()
        holder.wait()
    again = runner.invoke(app, ["league", "repair", str(nested)])  # the driver gone: repaired
    assert again.exit_code == 0 and "nothing to repair" in again.output, again.output
