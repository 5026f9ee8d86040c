"""A run's bytes, through one typed door: ``RunStore`` (docs/architecture.md, "records").

Every module that reads or writes a run's small files (records/names.py: the config, the run's id
and kind, the standings, each kind's settings and outcome, the report) does it through a
``RunStore``, never by a path of its own; the record tables' parts are listed by it too
(``part_files``, the committed parts a reader hands DuckDB or Polars as a list, never a glob).
``RunStore`` is an abstract base with two implementations: ``FolderStore``, a local folder (a
small file written under a temporary name and renamed, the parts committed as records/parts.py
says, the lock and the quarantine records/folder.py's), and ``records.s3store.S3RunStore``, a run
under ``s3://BUCKET/PREFIX`` (no rename: create-only commits, its lock records/s3lock.py's).

``open_store(where)`` is the factory, and the one place that tells an ``s3://`` URL from a local
path (records.urls.is_url is used nowhere outside records/: tests/test_layout.py); ``RunStore(where)``
is the same call. What is not one run (an ``--out`` checked before its run exists, the roots
``azul serve`` walks) is a ``RunsRoot``, from ``open_root``: its runs are ``root.run(name)``.

Beside the four game tables a run may hold side tables (records.names.SIDE_TABLES: the review's
``reviews/``): ``write_side`` commits a part of one into a run finished or not, without the run's
lock, with part ids of its own (records/side.py); the game checks never look at them, ``--fresh``
removes them with the games (``remove``), repair cleans their orphans (``clean_orphans``).

    store = open_store("runs/quick")       # or "s3://bucket/runs/quick"
    store.read_text(CONFIG_FILE)          # FileNotFoundError when it is not there
    store.write_text(STANDINGS_JSON, text)
    store.write_bytes("model.azv", data)  # bytes too (models, shards of positions)
    store.sub("gen-001/selfplay")         # a run nested in this one
    store.write_side("reviews", table)    # a part of a table beside the games
"""
from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow as pa

from .folder import lock_holder, replace_bytes, take_lock
from .interface import RunStore
from .parts import all_part_ids, clean_orphans, committed_parts, has_records, parquet_files, part_path, write_part
from .side import side_part_ids, with_side_tables, write_side_file
from .urls import as_typed, is_url


class FolderStore(RunStore):
    """One run folder (``root``): its small files by name, its nested runs, its parts."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"FolderStore({str(self.root)!r})"

    def __str__(self) -> str:
        return str(self.root)

    def __eq__(self, other) -> bool:
        return isinstance(other, FolderStore) and other.root == self.root

    def __hash__(self) -> int:
        return hash(self.root)

    def out_and_name(self) -> tuple[str, str]:
        return str(self.root.parent), self.root.name

    def address(self) -> str:
        return str(self.root.resolve())

    def above(self) -> list[RunStore]:
        """The folders above as the run was named where it names them, else from the root."""
        root, full = self.root, self.root.resolve()
        ups = [str(root.parents[k] if len(root.parts) > k + 1 else up)
               for k, up in enumerate((full.parent, full.parent.parent)) if up != full]
        return [FolderStore(up) for up in dict.fromkeys(ups)]

    def my_holder(self) -> str:
        return str(os.getpid())

    def file_argument(self, name: str) -> str | None:
        return self.where(name)

    def own_folder(self) -> Path:
        return self.root

    def blocked(self) -> bool:
        return self.root.exists() and not self.root.is_dir()

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
        return (self.root / name).read_text(encoding="utf-8")

    def read_bytes(self, name: str) -> bytes:
        return (self.root / name).read_bytes()

    def write_bytes(self, name: str, data: bytes) -> None:
        """Write the file whole (a model, a shard of positions): a temporary name, then a rename."""
        self.root.mkdir(parents=True, exist_ok=True)
        replace_bytes(self.root / name, data)

    def is_there(self) -> bool:
        return self.root.is_dir()

    def names(self, prefix: str, suffix: str) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir()
                      if p.name.startswith(prefix) and p.name.endswith(suffix) and p.is_file())

    def remove(self, *names: str) -> None:
        for name in with_side_tables(names):
            path = self.root / name
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()

    def folders(self, prefix: str) -> list[str]:
        return sorted(p.name for p in self.root.glob(f"{prefix}*") if p.is_dir()) if self.root.is_dir() else []

    def sub(self, name: str) -> FolderStore:
        return FolderStore(self.root / name)

    def part_files(self, table: str) -> list[Path]:
        return parquet_files(self.root, table)

    def committed(self) -> list[str]:
        """The ids of the committed parts (those with a ``games`` part), in order."""
        return committed_parts(self.root)

    def part_ids(self) -> set[str]:
        return all_part_ids(self.root)

    def write_part(self, number: int | str, tables: dict[str, Iterable[pa.Table]]) -> None:
        """Write and commit part ``number`` of every table (records/parts.py: renames, ``games`` last)."""
        write_part(self.root, number, tables)

    def part_source(self, part: int | str) -> Callable[[str], Any] | None:
        if not part_path(self.root, "games", part).exists():
            return None
        return lambda name: part_path(self.root, name, part)

    def has_records(self) -> bool:
        return has_records(self.root)

    def clean_orphans(self) -> list[Path]:
        return clean_orphans(self.root)

    def view(self, parts: bool = True) -> Path:
        """The folder itself."""
        return self.root

    def write_side(self, table: str, data: pa.Table) -> str:
        return write_side_file(self.root, table, data)

    def side_parts(self, table: str) -> list[str]:
        return side_part_ids(self.root, table)

    @contextmanager
    def lock(self) -> Iterator[None]:
        """The run's writer lock (records.folder.take_lock) while the block runs."""
        fd = take_lock(self.root)
        try:
            yield
        finally:
            os.close(fd)

    def holder(self) -> str | None:
        """Who holds the run's lock now (a pid), or None."""
        return lock_holder(self.root)


class RunsRoot:
    """A place that holds runs, not itself one run: an ``--out`` before its run exists, a folder
    or prefix ``azul serve`` walks. ``str(root)`` is it as a config keeps it (a folder as given,
    a URL checked and written as the store writes it)."""

    def __init__(self, store: RunStore, text: str):
        self.store, self.text = store, text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"RunsRoot({self.text!r})"

    @property
    def name(self) -> str:
        """Its last part (a label for it)."""
        return self.store.name

    def run(self, name: str) -> RunStore:
        """The store of the run ``name`` under it (``<out>/<name>``)."""
        return self.store.sub(name)

    def folder(self) -> Path | None:
        """Its local folder, or None: a prefix on object storage (walked through ``store``)."""
        return self.store.own_folder()

    def is_there(self) -> bool:
        """Whether anything is there (a folder; a prefix holding objects)."""
        return self.store.is_there()


def open_store(where: str | Path | RunStore) -> RunStore:
    """The store of a run, from ``--out``/a RUN argument: an ``s3://BUCKET/PREFIX`` URL (or the
    ``s3:/BUCKET/PREFIX`` a command's Path option leaves of one: ``urls.as_typed``) is a run on
    object storage (records/s3store.py), anything else a local folder, taken as it is. A
    ``ValueError`` of one line for a bad URL."""
    if isinstance(where, RunStore):
        return where
    text = str(where)
    if is_url(text):
        from .s3store import S3RunStore

        return S3RunStore(as_typed(text))  # s3:/B/P, or s3: (of s3://), as the URL typed
    return FolderStore(where)


def open_root(where: str | Path) -> RunsRoot:
    """The place ``where`` that holds runs (``--out``, a served root): a folder, or an ``s3://``
    prefix (checked: a ``ValueError`` of one line for a bad URL)."""
    store = open_store(where)
    return RunsRoot(store, str(where) if store.own_folder() is not None else str(store))


RunStore.opener = open_store  # RunStore(where) is open_store(where)


def local_run(where: str | Path | RunStore) -> Path:
    """A local folder that reads as the run ``where``: the folder itself, or for a run on object
    storage its view (records/s3store.py: its small files and committed parts, downloaded once)."""
    return open_store(where).view()


def store_holding(where: str | Path) -> RunStore:
    """The store of the run that holds the file ``where`` (``store.where(name)``: a path or a URL)."""
    text = str(where)
    return open_store(text.rsplit("/", 1)[0] if is_url(text) else Path(text).parent)


def run_ref(where: str | Path) -> str | Path:
    """``where`` as a reference to a run that keeps its spelling (a list of runs, a record's ``run``
    column): a local folder as a ``Path``, an ``s3://`` URL as its text (a Path would make ``s3:/``
    of ``s3://``)."""
    return str(where) if is_url(str(where)) else Path(where)
