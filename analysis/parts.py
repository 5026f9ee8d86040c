"""The part files of a run folder, checked before they are read (SPEC section 5).

A league writes part N of every table together and commits it by writing ``games`` part N last
(tournament/records.py). Every reader of a folder (``analysis.records.connect``,
``tournament.records.read_table``, the league's status and replay) first calls ``check_run_dir``:
a part that is empty, truncated or not Parquet, a ``*.parquet`` file that is not one of the table's
parts (it lacks the table's SPEC 5 columns), or a part of a table missing beside its committed
``games`` part raises one ``DamagedRecords`` naming the file and how to repair the folder. Only
the footer of each file is read here (its schema), so the check is cheap on a large league;
``tournament.repair`` reads every part in full.

Also the run's identity: ``run.json`` holds the ``run_id`` made when the folder was created;
``folder_run_ids`` tells which runs a folder holds (older folders have no ``run.json``: their
records say).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .schema import SCHEMAS, TABLES

PART = re.compile(r"^part-(\d{6})\.parquet$")  # the name a league gives a part file
RUN_FILE = "run.json"  # {"run_id": ...}, written when the run folder is created

# The columns every part of a table has: SPEC 5's (the first ones of each schema); columns added
# later may be missing in older runs (readers read them as null).
SPEC_COLUMNS = {"games": 11, "results": 12, "moves": 16, "rounds": 9}
REQUIRED = {name: [f.name for f in SCHEMAS[name]][:n] for name, n in SPEC_COLUMNS.items()}


class DamagedRecords(ValueError):
    """A run folder with a damaged, foreign or missing part file; ``path`` is the file."""

    def __init__(self, run_dir: Path, path: Path, why: str):
        self.run_dir, self.path, self.why = Path(run_dir), Path(path), why
        super().__init__(f"{path}: {why}; repair the run with `azul league repair {run_dir}` "
                         "(or finish it with `azul league run CONFIG --resume`)")


def part_problem(path: Path, name: str) -> str | None:
    """Why ``path`` cannot be read as a part of table ``name`` (None: its footer and columns are fine)."""
    try:
        if path.stat().st_size == 0:
            return "an empty file (zero bytes)"
        schema = pq.read_schema(path)
    except (pa.ArrowException, OSError) as exc:
        return f"not a readable Parquet file, truncated or damaged ({exc})"
    lacking = [c for c in REQUIRED[name] if c not in schema.names]
    if lacking:
        return f"not a part of the {name} table (no column {', '.join(lacking[:3])})"
    return None


def parquet_files(run_dir: Path, name: str) -> list[Path]:
    """The ``*.parquet`` files of one table's folder, as a folder reader sees them (sorted)."""
    folder = Path(run_dir) / name
    return sorted(folder.glob("*.parquet")) if folder.is_dir() else []


def part_numbers(run_dir: Path, name: str) -> set[int]:
    return {int(m.group(1)) for p in parquet_files(run_dir, name) if (m := PART.match(p.name))}


def check_run_dir(run_dir: str | Path) -> None:
    """Raise ``DamagedRecords`` for the first damaged or foreign file, or a part missing beside a
    committed ``games`` part (of a table the folder has parts of)."""
    run_dir = Path(run_dir)
    for name in TABLES:
        for path in parquet_files(run_dir, name):
            why = part_problem(path, name)
            if why:
                raise DamagedRecords(run_dir, path, why)
    committed = part_numbers(run_dir, "games")
    league = any((run_dir / f).exists() for f in (RUN_FILE, "config.yaml"))  # all four tables
    for name in TABLES[1:]:
        have = part_numbers(run_dir, name)
        if (have or league) and committed - have:
            n = min(committed - have)
            raise DamagedRecords(run_dir, run_dir / name / f"part-{n:06d}.parquet",
                                 f"missing (games part {n} records its games)")


def saved_run_id(run_dir: str | Path) -> str | None:
    """The ``run_id`` kept in the folder's ``run.json`` (None: an older folder without one)."""
    path = Path(run_dir) / RUN_FILE
    try:
        return str(json.loads(path.read_text(encoding="utf-8"))["run_id"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a run file ({exc}); it should hold {{\"run_id\": ...}}") from None


def folder_run_ids(run_dir: str | Path) -> set[str]:
    """The run ids a folder's ``games`` records hold (one for a league's folder)."""
    ids: set[str] = set()
    for path in parquet_files(Path(run_dir), "games"):
        ids.update(pq.read_table(path, columns=["run_id"]).column("run_id").unique().to_pylist())
    return ids
