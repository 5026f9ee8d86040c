"""A run's bytes, through one interface: ``RunStore`` (docs/architecture.md, "records").

Every module that reads or writes a run folder's small files (records/names.py: the config, the
run's id and kind, the standings, each kind's settings and outcome, the report) does it through
a ``RunStore``, never by a path of its own; the record tables' parts are listed by it too
(``part_files``, the committed parts a reader hands DuckDB or Polars as a list, never a glob).
Today's one implementation is a local folder, with its guarantees: a small file is written under
a temporary name and renamed (a reader or a kill finds the old file or the new one), the parts
are committed as records/parts.py says, the lock and the quarantine are records/folder.py's. A
store without rename (object storage) plugs in behind the same methods.

    store = RunStore("runs/quick")
    store.read_text(CONFIG_FILE)          # FileNotFoundError when it is not there
    store.write_text(STANDINGS_JSON, text)
    store.write_bytes("model.azv", data)  # bytes too (models, shards of positions)
    store.sub("gen-001/selfplay")         # a run nested in this one
"""
from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa

from .folder import lock_holder, replace_bytes, take_lock
from .urls import as_typed, is_url
from .parts import all_part_ids, committed_parts, has_records, parquet_files, write_part


class RunStore:
    """One run folder (``root``): its small files by name, its nested runs, its parts."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"RunStore({str(self.root)!r})"

    def __str__(self) -> str:
        return str(self.root)

    def where(self, name: str) -> str:
        """Where the file ``name`` is, as a person types it in a command (a path here)."""
        return str(self.root / name)

    def local(self, name: str) -> Path:
        """The local path of the file ``name``, for the libraries that only write to a path
        (matplotlib's ``savefig``, MLflow's ``log_artifact``, a model's ``save``)."""
        return self.root / name

    def exists(self, name: str) -> bool:
        return (self.root / name).exists()

    def read_text(self, name: str) -> str:
        """The file's text (UTF-8); ``FileNotFoundError`` (an ``OSError``) when it is not there."""
        return (self.root / name).read_text(encoding="utf-8")

    def write_text(self, name: str, text: str) -> None:
        """Write the file whole: the old one or the new one is there at every moment."""
        self.write_bytes(name, text.encode("utf-8"))

    def read_bytes(self, name: str) -> bytes:
        """The file's bytes; ``FileNotFoundError`` when it is not there."""
        return (self.root / name).read_bytes()

    def write_bytes(self, name: str, data: bytes) -> None:
        """Write the file whole (a model, a shard of positions), as ``write_text``."""
        self.root.mkdir(parents=True, exist_ok=True)
        replace_bytes(self.root / name, data)

    def is_there(self) -> bool:
        """Whether the run (or folder) is there at all."""
        return self.root.is_dir()

    def names(self, prefix: str, suffix: str) -> list[str]:
        """The names of its files that start with ``prefix`` and end with ``suffix``, sorted
        (a generation's shards of positions)."""
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir()
                      if p.name.startswith(prefix) and p.name.endswith(suffix) and p.is_file())

    def remove(self, *names: str) -> None:
        """Remove these files or folders (those not there are skipped)."""
        for name in names:
            path = self.root / name
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()

    def folders(self, prefix: str) -> list[str]:
        """The names of its folders that start with ``prefix`` (a training run's ``gen-``), sorted."""
        return sorted(p.name for p in self.root.glob(f"{prefix}*") if p.is_dir()) if self.root.is_dir() else []

    def sub(self, name: str) -> RunStore:
        """The store of a run nested in this one (a training run's ``gen-NNN/selfplay``)."""
        return RunStore(self.root / name)

    def part_files(self, table: str) -> list[Path]:
        """The part files of one record table, as a reader reads them (sorted)."""
        return parquet_files(self.root, table)

    def committed(self) -> list[str]:
        """The ids of the committed parts (those with a ``games`` part), in order."""
        return committed_parts(self.root)

    def part_ids(self) -> set[str]:
        """The ids of every part there, committed or not (a writer's next number comes after them)."""
        return all_part_ids(self.root)

    def write_part(self, number: int | str, tables: dict[str, Iterable[pa.Table]]) -> None:
        """Write and commit part ``number`` of every table (records/parts.py: renames, ``games`` last)."""
        write_part(self.root, number, tables)

    def has_records(self) -> bool:
        """Whether any part is there (committed or not)."""
        return has_records(self.root)

    def view(self, parts: bool = True) -> Path:
        """A local folder that reads as the run (its small files and, with ``parts``, its committed
        parts): the folder itself."""
        return self.root

    @contextmanager
    def lock(self) -> Iterator[None]:
        """The run's writer lock (records.folder.take_lock) while the block runs; ``RunInUse``
        when another process holds it."""
        fd = take_lock(self.root)
        try:
            yield
        finally:
            os.close(fd)

    def holder(self) -> str | None:
        """Who holds the run's lock now (a pid), or None."""
        return lock_holder(self.root)


def as_store(run: str | Path | RunStore):
    """``run`` as a store: a store as it is, else ``open_store(run)``."""
    return run if hasattr(run, "write_part") else open_store(run)


def open_store(where: str | Path):
    """The store of a run, from ``--out``/a RUN argument: an ``s3://BUCKET/PREFIX`` URL (or the
    ``s3:/BUCKET/PREFIX`` a command's Path option leaves of one: ``urls.as_typed``) is a run on
    object storage (records/s3store.py), anything else a local folder, taken as it is."""
    text = str(where)
    if is_url(text):
        from .s3store import S3RunStore

        return S3RunStore(as_typed(text))  # s3:/B/P, or s3: (of s3://), as the URL typed
    return RunStore(where)


def local_run(where: str | Path) -> Path:
    """A local folder that reads as the run ``where``: the folder itself, or for a run on object
    storage its view (records/s3store.py: its small files and committed parts, downloaded once)."""
    return open_store(where).view() if is_url(str(where)) else Path(where)
