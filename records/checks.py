"""The checks every reader of a run folder makes first (SPEC section 5).

Every reader of a folder (``analysis.records.connect``, ``records.read.read_table``, the league's
status and replay) first calls ``check_run_dir``: a part that is empty, truncated or not Parquet,
a ``*.parquet`` file that is not one of the table's parts (it lacks the table's SPEC 5 columns),
or a part of a table missing beside its committed ``games`` part raises one ``DamagedRecords``
naming the file and how to repair the folder. Only the footer of each file is read here (its
schema), so the check is cheap on a large league; ``tournament.repair`` reads every part in full.
Damage inside a part's data pages (its footer intact) is found only when the part is read: a
reader does its reads inside ``naming_damage``, which then reads every part of its folders in
full (``find_damage``) and raises the ``DamagedRecords`` of the damaged one.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .columns import REQUIRED, TABLES
from .errors import AzulError
from .names import CONFIG_FILE, RUN_FILE
from .parts import parquet_files, part_ids, part_path
from .urls import is_url, shown


class DamagedRecords(AzulError, ValueError):
    """A run folder with a damaged, foreign or missing part file; ``path`` is the file."""

    def __init__(self, folder: Path, path: Path, why: str):
        def kept(where):  # a run on object storage is named by its URL (a Path would make s3:/ of s3://)
            return str(where) if is_url(str(where)) else Path(where)

        url = shown(folder) if not is_url(str(folder)) else str(folder)
        if url != str(folder):  # a run's local view (records/s3store.py): named by the run's URL
            try:
                path = f"{url}/{Path(path).relative_to(folder).as_posix()}"
                folder = url
            except ValueError:
                pass
        self.run_dir, self.path, self.why = kept(folder), kept(path), why
        super().__init__(f"{path}: {why}; repair the run with `azul league repair {folder}` "
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


def check_run_dir(folder: str | Path) -> None:
    """Raise ``DamagedRecords`` for the first damaged or foreign file, or a part missing beside a
    committed ``games`` part (of a table the folder has parts of)."""
    folder = Path(folder)
    for name in TABLES:
        for path in parquet_files(folder, name):
            why = part_problem(path, name)
            if why:
                raise DamagedRecords(folder, path, why)
    committed = part_ids(folder, "games")
    league = any((folder / f).exists() for f in (RUN_FILE, CONFIG_FILE))  # all four tables
    for name in TABLES[1:]:
        have = part_ids(folder, name)
        if (have or league) and committed - have:
            n = min(committed - have)
            raise DamagedRecords(folder, part_path(folder, name, n),
                                 f"missing (games part {n} records its games)")


READ_ERRORS = (pa.ArrowException, OSError)  # what reading a damaged part raises (pyarrow)


def _one_line(exc: BaseException) -> str:
    return "".join(c if c.isprintable() else "?" for c in " ".join(str(exc).split()))


def read_verified(path: Path, **options) -> pa.Table:
    """A part read whole with its pages' checksums verified (records/parts.py writes them): damage
    inside a data page, which leaves the footer intact and may read as other numbers, is an error.
    DuckDB and a plain ``pq.read_table`` do not verify them (docs/league.md, "Records")."""
    return pq.read_table(path, page_checksum_verification=True, **options)


def find_damage(folders: Iterable[str | Path]) -> DamagedRecords | None:
    """The ``DamagedRecords`` of the first part of the folders that cannot be read in full (None:
    every part reads). Reads every part: for after a read failed, not before every read."""
    for folder in map(Path, folders):
        for name in TABLES:
            for path in parquet_files(folder, name):
                try:
                    read_verified(path)
                except READ_ERRORS as exc:
                    return DamagedRecords(folder, path, f"damaged inside, its data cannot be read "
                                                         f"({_one_line(exc)})")
    return None


@contextmanager
def naming_damage(folders: str | Path | Iterable[str | Path],
                  errors: tuple[type[BaseException], ...] = READ_ERRORS) -> Iterator[None]:
    """Reads of the folders ``folders``: an error of ``errors`` raised in the block becomes the
    ``DamagedRecords`` of the part that a full read finds damaged (and stays as it is if none is)."""
    dirs = [folders] if isinstance(folders, (str, Path)) else list(folders)
    try:
        yield
    except errors:
        damage = find_damage(dirs)
        if damage is None:
            raise
        raise damage from None
