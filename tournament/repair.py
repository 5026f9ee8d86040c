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

The games it reports no longer recorded (``RepairReport.dropped``) are every game a committed
part held that is not whole after it: those of a part rewritten or removed, and those of a part
whose ``games`` table could not be read, named by its other tables (or by the ``game_id`` column
of that table, where it still reads), so they are the games ``azul league status`` then counts
missing.

The caller holds the run's lock (``run_folder.repair_run``, and ``run_league`` on ``--resume``);
a run nested in another (a training run's ``gen-NNN/selfplay``) is refused while another process
holds the lock of the run above it (``HeldAbove``): that driver may be about to read or resume it.
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
from records.folder import RunInUse, quarantine
from records.parts import PART, clean_orphans, parquet_files, part_ids, part_path, write_part
from records.read import read_table
from records.store import RunStore


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


def repair(run: RunStore) -> RepairReport:
    """Quarantine what cannot be read, keep only whole games, remove orphans; say what was done.
    ``run``: a folder, or a store (records.store.open_store; a run on object storage)."""
    store = RunStore(run)
    _refuse_if_held_above(store)
    folder = store.own_folder()  # a folder is mended in place; a run on object storage through its commits
    if folder is None:
        return _repair_objects(store)
    report = RepairReport(folder)
    for name in TABLES:
        for path in parquet_files(folder, name):
            if not PART.match(path.name):
                _quarantine(report, path, name, "not a part of the league (those are named "
                                                "part-NNNNNN.parquet or part-NNNNNN-TTTTTTTT.parquet)")
    kept: set[str] = set()
    listed: set[str] = set()
    for number in sorted(set().union(*(part_ids(folder, name) for name in TABLES))):
        tables, unreadable = {}, None
        for name in TABLES:
            path = part_path(folder, name, number)
            if path.exists():
                table, why = _read_part(path, name)
                if why is None:
                    tables[name] = table
                else:
                    if name == "games":  # committed, unreadable: its games are no longer recorded
                        unreadable = _game_ids_in(path)
                    _quarantine(report, path, name, why)
        if "games" not in tables:  # nothing commits this part (now): its rows are orphans, removed below
            if unreadable is not None:  # its games were recorded: named by what still reads of the part
                listed.update(unreadable | _game_ids(tables))
            continue
        listed.update(tables["games"].column("game_id").to_pylist())
        whole = _whole_games(tables, kept)
        kept |= whole
        if all(name in tables and _rows_of(tables[name], whole).num_rows == tables[name].num_rows
               for name in TABLES):
            continue
        _rewrite(folder, number, tables, whole)
        report.rewritten.append(number)
    report.dropped = sorted(listed - kept)
    report.removed = clean_orphans(folder)
    return report


def _repair_objects(store: RunStore) -> RepairReport:
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
            tables, why, salvaged = {}, {}, set()
            for name in TABLES:
                path = Path(scratch) / f"{name}.parquet"
                try:
                    path.write_bytes(store.part_data(number, name, commit))
                    table, problem = _read_part(path, name)
                    if problem is not None and name == "games":
                        salvaged = _game_ids_in(path)
                except ValueError as exc:
                    table, problem = None, str(exc).split(": ", 1)[1]
                if problem is None:
                    tables[name] = table
                else:
                    why[name] = problem
            # a committed part's games, named by what reads of it when its games table does not
            listed.update(tables["games"].column("game_id").to_pylist() if "games" in tables
                          else salvaged | _game_ids(tables))
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


def drop_duplicate_games(run: RunStore) -> RepairReport | None:
    """Repair the folder if a game is recorded in two committed parts (tasks that write their own
    parts: one the driver gave up on may commit after its games were played again); None if not.
    Only the ``games`` parts' ids are read unless a game is there twice."""
    store = RunStore(run)
    ids = read_table(store.view(), "games", ["game_id"]).column("game_id")
    if pc.count_distinct(ids).as_py() == len(ids):
        return None
    return repair(store)


def _game_ids(tables: dict[str, pa.Table]) -> set[str]:
    """The ids of the games that rows of these tables (of one part) belong to."""
    return {g for t in tables.values() for g in t.column("game_id").unique().to_pylist() if g is not None}


def _game_ids_in(path: Path) -> set[str]:
    """The ``game_id`` column of a part that does not read whole, where that column still reads
    (damage in another column's pages), else nothing (a foreign file names no game of the run)."""
    if part_problem(path, "games") is not None:
        return set()
    try:
        return {g for g in read_verified(path, columns=["game_id"]).column("game_id").to_pylist() if g is not None}
    except (pa.ArrowException, OSError, ValueError, KeyError):
        return set()


class HeldAbove(RunInUse):
    """The run holding this one (one or two levels up: a training run) is being played by another
    process (``pid``: as its lock records it, with the host on object storage)."""

    def __init__(self, run: RunStore, above, pid: str):
        RuntimeError.__init__(self, f"{run}: the run that holds it, {above}, is being played by a driver "
                                    f"(pid {pid}), which reads and resumes the runs it holds: repair it "
                                    "once that driver has stopped")
        self.pid = pid


def _refuse_if_held_above(store: RunStore) -> None:
    """``HeldAbove`` when the lock of a folder (or prefix) one or two levels above the run is held
    by another live process: a run nested in a training run whose driver is playing."""
    mine = store.my_holder()
    for up in store.above():  # the folders (prefixes) above, as RunStore.above names them
        try:
            holder = up.holder()
        except OSError:  # a folder or prefix above that this user may not read: no run of theirs
            continue
        if holder is not None and holder != mine:
            raise HeldAbove(store.root, up, holder)


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


def _rewrite(folder: Path, number: str, tables: dict[str, pa.Table], whole: set[str]) -> None:
    """Part ``number`` of the run folder again with the whole games only; removed (games first) if
    none is whole."""
    if not whole:
        part_path(folder, "games", number).unlink(missing_ok=True)  # the rest are orphans now
        for name in TABLES[1:]:
            part_path(folder, name, number).unlink(missing_ok=True)
        return
    write_part(folder, number, {name: [_rows_of(tables.get(name, SCHEMAS[name].empty_table()), whole)]
                                 for name in TABLES})


def _quarantine(report: RepairReport, path: Path, name: str, why: str) -> None:
    report.quarantined.append((path, quarantine(report.run_dir, path, name), why))
