"""Mend a run folder with damaged, foreign or missing part files (docs/league.md, Repair).

    from tournament.repair import repair
    report = repair("runs/quick")   # then ``run_league(config, resume=True)`` plays what is missing

A game is recorded when it is whole in all four tables: its ``games`` row, one ``results`` row a
seat, ``plies`` ``moves`` rows and ``rounds`` x seats ``rounds`` rows, all in the same part. The
repair reads every part in full; a file that cannot be read as a part of its table (empty,
truncated, garbled, foreign, or not named ``part-NNNNNN[-TTTTTTTT].parquet``) is moved to
``<run>/quarantine/<table>/``, never deleted. A part whose rows are not all of whole games is
written again with the whole games only (the commit protocol of ``records.parts.write_part``: temporary
name, rename, ``games`` last); orphan parts (no ``games`` part) and temporary files are removed,
as before. Games are deterministic from the config, so ``--resume`` then plays the games that are
no longer recorded and the folder ends as an undamaged run would (timings aside).

The caller holds the run's lock (``run_folder.repair_run``, and ``run_league`` on ``--resume``).
"""
from __future__ import annotations

import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from records.checks import part_problem, read_verified
from records.columns import EVENT_COLUMNS, SCHEMAS, STUDY_COLUMNS, TABLES
from records.folder import quarantine
from records.parts import PART, clean_orphans, parquet_files, part_ids, part_path, write_part
from records.read import read_table
from records.store import RunStore, as_store


@dataclass
class RepairReport:
    run_dir: Path
    quarantined: list[tuple[Path, Path, str]] = field(default_factory=list)  # (file, moved to, why)
    rewritten: list[str] = field(default_factory=list)  # parts written again (or removed: no whole game)
    dropped: list[str] = field(default_factory=list)  # ids of games no longer recorded (to play again)
    removed: list[Path] = field(default_factory=list)  # orphan parts and temporary files

    @property
    def changed(self) -> bool:
        return bool(self.quarantined or self.rewritten or self.dropped)


def repair(run_dir) -> RepairReport:
    """Quarantine what cannot be read, keep only whole games, remove orphans; say what was done.
    ``run_dir``: a folder, or a store (records.store.open_store; a run on object storage)."""
    store = as_store(run_dir)
    if not isinstance(store, RunStore):
        return _repair_objects(store)
    run_dir = Path(store.root)
    report = RepairReport(run_dir)
    for name in TABLES:
        for path in parquet_files(run_dir, name):
            if not PART.match(path.name):
                _quarantine(report, path, name, "not a part of the league (those are named "
                                                "part-NNNNNN.parquet or part-NNNNNN-TTTTTTTT.parquet)")
    kept: set[str] = set()
    listed: set[str] = set()
    for number in sorted(set().union(*(part_ids(run_dir, name) for name in TABLES))):
        tables = {}
        for name in TABLES:
            path = part_path(run_dir, name, number)
            if path.exists():
                table, why = _read_part(path, name)
                if why is None:
                    tables[name] = table
                else:
                    _quarantine(report, path, name, why)
        if "games" not in tables:  # nothing commits this part: its rows are orphans, removed below
            continue
        listed.update(tables["games"].column("game_id").to_pylist())
        whole = _whole_games(tables, kept)
        kept |= whole
        if all(name in tables and _rows_of(tables[name], whole).num_rows == tables[name].num_rows
               for name in TABLES):
            continue
        _rewrite(run_dir, number, tables, whole)
        report.rewritten.append(number)
    report.dropped = sorted(listed - kept)
    report.removed = clean_orphans(run_dir)
    return report


def _repair_objects(store) -> RepairReport:
    """``repair`` of a run on object storage (records/s3store.py): staged parts finished or removed;
    each committed part read from its objects in full; one with a table that does not read (or is
    not the bytes its commit lists) is uncommitted, its damaged tables quarantined; one with rows of
    games not whole is committed again with the whole games only."""
    report = RepairReport(store.root)
    report.removed = store.clean_orphans()
    kept: set[str] = set()
    listed: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="azul-repair-") as scratch:
        for number in store.committed():
            commit = store.commit_of(number)
            tables, why = {}, {}
            for name in TABLES:
                path = Path(scratch) / f"{name}.parquet"
                try:
                    path.write_bytes(store.part_data(number, name, commit))
                    table, problem = _read_part(path, name)
                except ValueError as exc:
                    table, problem = None, str(exc).split(": ", 1)[1]
                if problem is None:
                    tables[name] = table
                else:
                    why[name] = problem
            if "games" in tables:
                listed.update(tables["games"].column("game_id").to_pylist())
            if why:
                report.quarantined.extend(store.quarantine(number, why))
                continue
            whole = _whole_games(tables, kept)
            kept |= whole
            if all(_rows_of(tables[name], whole).num_rows == tables[name].num_rows for name in TABLES):
                continue
            if whole:  # committed again (a new commit of the same id) with the whole games only
                store.uncommit(number)
                store.write_part(number, {name: [_rows_of(tables[name], whole)] for name in TABLES})
            else:
                store.quarantine(number, {})  # uncommitted and removed: no table of it is damaged
            report.rewritten.append(number)
    report.dropped = sorted(listed - kept)
    return report


def drop_duplicate_games(run_dir: str | Path) -> RepairReport | None:
    """Repair the folder if a game is recorded in two committed parts (tasks that write their own
    parts: one the driver gave up on may commit after its games were played again); None if not.
    Only the ``games`` parts' ids are read unless a game is there twice."""
    store = as_store(run_dir)
    ids = read_table(store.view(), "games", ["game_id"]).column("game_id")
    if pc.count_distinct(ids).as_py() == len(ids):
        return None
    return repair(store)


def _read_part(path: Path, name: str) -> tuple[pa.Table | None, str | None]:
    """The part's rows in the table's schema, or why they cannot be read."""
    why = part_problem(path, name)
    if why:
        return None, why
    try:  # the table's columns, and a study's or an event's columns where the part has them
        present = set(pq.read_schema(path).names)
        extra = [f for group in (STUDY_COLUMNS, EVENT_COLUMNS) for f in group if f.name in present]
        return read_verified(path, schema=pa.schema(list(SCHEMAS[name]) + extra)), None
    except (pa.ArrowException, OSError, ValueError) as exc:
        return None, f"cannot be read ({exc})"


def _whole_games(tables: dict[str, pa.Table], earlier: set[str]) -> set[str]:
    """The games of a part whose rows are all there (and not already recorded by an earlier part)."""
    counts = {name: Counter(tables[name].column("game_id").to_pylist()) if name in tables else Counter()
              for name in TABLES[1:]}
    whole = set()
    for g in tables["games"].select(["game_id", "num_players", "plies", "rounds"]).to_pylist():
        gid, seats = g["game_id"], g["num_players"] or 0
        want = {"results": seats, "moves": g["plies"] or 0, "rounds": (g["rounds"] or 0) * seats}
        if gid not in earlier and gid not in whole and seats and \
                all(counts[name][gid] == n for name, n in want.items()):
            whole.add(gid)
    return whole


def _rows_of(table: pa.Table, games: set[str]) -> pa.Table:
    return table.filter(pc.is_in(table.column("game_id"), value_set=pa.array(sorted(games), pa.string())))


def _rewrite(run_dir: Path, number: str, tables: dict[str, pa.Table], whole: set[str]) -> None:
    """Part ``number`` again with the whole games only; removed (games first) if none is whole."""
    if not whole:
        part_path(run_dir, "games", number).unlink(missing_ok=True)  # the rest are orphans now
        for name in TABLES[1:]:
            part_path(run_dir, name, number).unlink(missing_ok=True)
        return
    write_part(run_dir, number, {name: [_rows_of(tables.get(name, SCHEMAS[name].empty_table()), whole)]
                                 for name in TABLES})


def _quarantine(report: RepairReport, path: Path, name: str, why: str) -> None:
    report.quarantined.append((path, quarantine(report.run_dir, path, name), why))
