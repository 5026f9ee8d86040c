"""Run folders with a missing, damaged or foreign part: every reader refuses them by name, and
``--resume`` (or ``azul league repair``) quarantines what cannot be read and replays the games
that are no longer whole, so the records end as those of an undamaged run (timings aside)."""
from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from typer.testing import CliRunner

from analysis.records import connect, read_records
from azul_cli.main import app
from records.checks import DamagedRecords
from records.parts import part_path
from test_league_support import league
from tournament import read_table
from tournament.config import parse_config
from tournament.runner import run_league

runner = CliRunner()
TABLES = ("games", "results", "moves", "rounds")
TIMING = {"think_ms", "duration_s", "run_id"}
NAME = "dmg"


def config_of(out: Path) -> dict:
    return league(out, ["random", "greedy"], name=NAME, deals=4, batch_games=2, flush_seconds=0)


def rows(run_dir: Path) -> dict[str, list[str]]:
    out = {}
    for name in TABLES:
        table = read_table(run_dir, name)
        out[name] = sorted(json.dumps({k: v for k, v in r.items() if k not in TIMING}, sort_keys=True)
                           for r in table.to_pylist())
    return out


@pytest.fixture(scope="module")
def undamaged(tmp_path_factory):
    out = tmp_path_factory.mktemp("undamaged")
    summary = run_league(parse_config(config_of(out)), progress=False)
    assert summary.complete and len([p for p in (summary.run_dir / "games").iterdir()]) >= 3  # parts
    return summary.run_dir, rows(summary.run_dir)


def copy(undamaged, tmp_path: Path) -> Path:
    run_dir = tmp_path / NAME
    shutil.copytree(undamaged[0], run_dir)
    return run_dir


def truncate(p: Path) -> None:
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


def garble(p: Path) -> None:
    p.write_bytes(bytes(b ^ 0x5A for b in p.read_bytes()))


def foreign(p: Path) -> Path:
    extra = p.parent / "extra.parquet"
    pq.write_table(pa.table({"x": [1, 2, 3]}), extra)
    return extra


DAMAGE = {"deleted": Path.unlink, "truncated": truncate, "zero-byte": lambda p: p.write_bytes(b""),
          "garbled": garble, "foreign": foreign}


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_resume_mends_a_damaged_run(undamaged, tmp_path, table, kind):
    run_dir = copy(undamaged, tmp_path)
    run_id = json.loads((run_dir / "run.json").read_text())["run_id"]
    part = part_path(run_dir, table, 2)
    bad = DAMAGE[kind](part) or part
    if (kind, table) != ("deleted", "games"):  # without its games part, part 2 is an orphan, not damage
        for read in (lambda: read_table(run_dir, "results"), lambda: read_records(run_dir),
                     lambda: connect(run_dir)):
            with pytest.raises(DamagedRecords, match=re.escape(str(bad)) + ".*azul league repair"):
                read()
    summary = run_league(parse_config(config_of(tmp_path)), resume=True, progress=False)
    assert summary.complete and summary.played == 2 - (kind == "foreign") * 2  # part 2 held 2 games
    assert rows(run_dir) == undamaged[1]
    games = Counter(read_table(run_dir, "games", ["game_id"]).column("game_id").to_pylist())
    assert len(games) == summary.total and set(games.values()) == {1}  # every game once ...
    for name in TABLES:  # ... in every table (the rows equal the undamaged run's: no row twice)
        assert set(read_table(run_dir, name, ["game_id"]).column("game_id").to_pylist()) == set(games)
        assert set(read_table(run_dir, name, ["run_id"]).column("run_id").to_pylist()) == {run_id}
    quarantined = sorted(p.relative_to(run_dir) for p in (run_dir / "quarantine").rglob("*") if p.is_file()) \
        if (run_dir / "quarantine").exists() else []
    assert quarantined == ([] if kind == "deleted" else [Path("quarantine", table, bad.name)])
    assert read_records(run_dir)["games"].height == summary.total


def test_repair_command_and_readers_on_a_run_missing_a_part(undamaged, tmp_path):
    run_dir = copy(undamaged, tmp_path)
    missing = part_path(run_dir, "results", 3)
    missing.unlink()
    for args in (["league", "status", str(run_dir)], ["elo", str(run_dir)], ["standings", str(run_dir)],
                 ["report", str(run_dir)], ["replay", str(run_dir), "t000-d00000-a00"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 1 and "Traceback" not in result.output, (args, result.output)
        assert result.output.count("error:") == 1 and f"{missing}: missing" in result.output, args
    config = tmp_path / "dmg.yaml"
    config.write_text(yaml.safe_dump(config_of(tmp_path)))
    repaired = runner.invoke(app, ["league", "repair", str(run_dir)])
    assert repaired.exit_code == 0, repaired.output
    assert "2 games no longer recorded" in repaired.output and "--resume" in repaired.output
    status = runner.invoke(app, ["league", "status", str(run_dir)])
    assert status.exit_code == 0 and "6 of 8 games recorded, incomplete" in status.output, status.output
    again = runner.invoke(app, ["league", "repair", str(run_dir)])
    assert again.exit_code == 0 and "nothing to repair" in again.output
    done = runner.invoke(app, ["league", "run", str(config), "--resume", "-q", "--no-report"])
    assert done.exit_code == 0 and "2 games played" in done.output, done.output
    assert rows(run_dir) == undamaged[1]


def test_a_foreign_file_is_named_by_every_command(undamaged, tmp_path):
    run_dir = copy(undamaged, tmp_path)
    extra = foreign(run_dir / "games" / "x")
    for args in (["elo", str(run_dir)], ["report", str(run_dir)], ["openings", str(run_dir)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 1, result.output
        assert f"error: {extra}: not a part of the games table (no column run_id" in result.output


# ---------------------------------------------------------------- runs read together
@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """The same config run twice, into two output folders."""
    base = tmp_path_factory.mktemp("two")
    dirs = []
    for out in ("a", "b"):
        data = league(base / out, ["random", "greedy", "heuristic"], name="same", deals=2)
        dirs.append(run_league(parse_config(data), progress=False).run_dir)
    return dirs


def direct(dirs: list[Path], name: str) -> list[dict]:
    """The rows of a table read straight from the part files, run after run."""
    return [r for d in dirs for p in sorted((d / name).glob("part-*.parquet")) for r in pq.read_table(p).to_pylist()]


def invoke_json(*args) -> dict | list:
    result = runner.invoke(app, [*map(str, args), "-f", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_two_runs_of_one_config_count_once_each(two_runs, tmp_path):
    a, b = two_runs
    assert json.loads((a / "run.json").read_text()) != json.loads((b / "run.json").read_text())
    results = direct(two_runs, "results")
    per_bot = Counter(r["bot"] for r in results)
    assert len(direct(two_runs, "games")) == 24 and len({(r["run_id"], r["game_id"]) for r in results}) == 24
    elo = invoke_json("elo", a, b)
    assert {r["bot"]: r["games"] for r in elo[0]["bots"]} == per_bot
    standings = invoke_json("standings", a, b)
    assert {r["bot"]: r["games"] for r in standings["rows"]} == per_bot
    openings = invoke_json("openings", a, b)
    assert sum(r["n"] for r in openings["rows"]) == len(results)
    marker = invoke_json("marker", a, b)
    assert sum(r["rounds"] for r in marker["summary"]) == len(direct(two_runs, "rounds"))
    report = runner.invoke(app, ["report", str(a), str(b), "--out", str(tmp_path), "--bootstrap", "0"])
    assert report.exit_code == 0, report.output
    assert "24 games" in (tmp_path / "summary.md").read_text()


def test_a_folder_given_twice_is_read_once(two_runs, tmp_path):
    a = two_runs[0]
    for command in ("elo", "standings", "openings", "marker"):
        once = runner.invoke(app, [command, str(a), "-f", "json"])
        twice = runner.invoke(app, [command, str(a), str(a), "-f", "json"])
        assert twice.exit_code == 0 and twice.stdout == once.stdout, command
        assert f"warning: {a}: the same folder as {a}, read once" in twice.stderr
    report = runner.invoke(app, ["report", str(a), str(a), "--out", str(tmp_path), "--bootstrap", "0"])
    assert report.exit_code == 0 and "read once" in report.stderr
    assert "12 games" in (tmp_path / "summary.md").read_text()


def test_two_folders_of_one_run_are_refused(two_runs, tmp_path):
    """A copy of a folder (or two older folders whose run_id was the league's name) cannot be told apart."""
    a = two_runs[0]
    shutil.copytree(a, tmp_path / "copy")
    result = runner.invoke(app, ["elo", str(a), str(tmp_path / "copy")])
    assert result.exit_code == 1
    assert f"{a} and {tmp_path / 'copy'} hold the same run (run_id " in result.output
    with pytest.raises(ValueError, match="cannot be told apart"):
        read_records([a, tmp_path / "copy"])


def damage_a_page(p: Path) -> None:
    """Overwrite the middle half of a part's pages: its data are damaged, its footer is intact."""
    data = bytearray(p.read_bytes())
    pages_end = len(data) - 8 - int.from_bytes(data[-8:-4], "little")  # the footer and its length follow
    start, end = 4 + (pages_end - 4) // 4, 4 + 3 * (pages_end - 4) // 4
    data[start:end] = bytes(b ^ 0x5A for b in data[start:end])
    p.write_bytes(bytes(data))


@pytest.mark.parametrize("table", ["games", "moves"])
def test_a_damaged_data_page_is_named_by_every_reader_and_repaired(undamaged, tmp_path, table):
    run_dir = copy(undamaged, tmp_path)
    bad = part_path(run_dir, table, 2)
    in_bad = pq.read_table(bad, columns=["game_id"]).column("game_id")[0].as_py()
    damage_a_page(bad)
    assert pq.read_schema(bad)  # the footer reads: only a full read finds the damage
    readers = [["openings", str(run_dir)], ["report", str(run_dir), "--out", str(tmp_path / "report")],
               ["replay", str(run_dir), in_bad]]
    if table == "games":  # readers of games and results (and marker: of some columns of moves)
        readers += [["elo", str(run_dir)], ["standings", str(run_dir)], ["marker", str(run_dir)],
                    ["league", "status", str(run_dir)]]
    for args in readers:
        result = runner.invoke(app, args)
        assert result.exit_code == 1 and "Traceback" not in result.output, (args, result.output)
        assert result.output.count("error:") == 1 and f"error: {bad}: damaged" in result.output, (args, result.output)
        assert f"azul league repair {run_dir}" in result.output, (args, result.output)
    repaired = runner.invoke(app, ["league", "repair", str(run_dir)])
    assert repaired.exit_code == 0, repaired.output
    assert (run_dir / "quarantine" / table / bad.name).exists()
    status = runner.invoke(app, ["league", "status", str(run_dir)])
    assert status.exit_code == 0 and "6 of 8 games recorded, incomplete" in status.output, status.output
    config = tmp_path / "dmg.yaml"
    config.write_text(yaml.safe_dump(config_of(tmp_path)))
    done = runner.invoke(app, ["league", "run", str(config), "--resume", "-q", "--no-report"])
    assert done.exit_code == 0 and "2 games played" in done.output, done.output
    assert rows(run_dir) == undamaged[1]


def flip_a_page_byte(p: Path) -> None:
    """Change one byte inside a data page, the footer intact, where the part still reads as a table
    (other numbers or text) when its pages' checksums are not verified: silent damage."""
    data, original = p.read_bytes(), pq.read_table(p)
    footer = int.from_bytes(data[-8:-4], "little") + 8
    for at in range(4, len(data) - footer):
        changed = bytearray(data)
        changed[at] ^= 0x01
        p.write_bytes(bytes(changed))
        try:
            if not pq.read_table(p).equals(original):  # reads, and reads wrong
                return
        except (pa.ArrowException, OSError):
            continue
    raise AssertionError(f"no byte of {p} changes its data silently")


@pytest.mark.parametrize("table", ["results", "moves"])
def test_damage_inside_a_data_page_is_found_by_repair_and_resume(undamaged, tmp_path, table):
    run_dir = copy(undamaged, tmp_path)
    part = part_path(run_dir, table, 2)
    flip_a_page_byte(part)
    assert not pq.read_table(part).equals(pq.read_table(part_path(undamaged[0], table, 2)))  # silently wrong
    repaired = runner.invoke(app, ["league", "repair", str(run_dir)])
    assert repaired.exit_code == 0 and f"quarantined {part}" in repaired.output and "CRC" in repaired.output
    summary = run_league(parse_config(config_of(tmp_path)), resume=True, progress=False)
    assert summary.complete and summary.played == 2 and rows(run_dir) == undamaged[1]
