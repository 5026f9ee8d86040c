"""``RunStore``: the one interface to a run's bytes (records/store.py says what it is for and
makes the stores; records.store.FolderStore and records.s3store.S3RunStore implement it).

Apart from records/store.py so that both implementations, and the modules below them
(records/folder.py, records/parts.py), name it without importing the factory.
"""
from __future__ import annotations

from abc import ABCMeta, abstractmethod
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .names import SIDE_TABLES


class _Opens(ABCMeta):
    """``RunStore(where)`` is the factory: a store as it is, else ``opener(where)``; a subclass
    (``FolderStore(root)``) is made as any class is."""

    def __call__(cls, *args, **kwargs):
        if cls is RunStore:
            return RunStore.opener(*args, **kwargs)
        return super().__call__(*args, **kwargs)


class RunStore(metaclass=_Opens):
    """One run: its small files by name, its nested runs, its parts, its lock; and what callers
    compute around it (its name, ``--out`` and address, the runs above it, its side tables).

    ``RunStore(where)`` on the base itself is ``records.store.open_store(where)`` (which sets
    itself as ``opener`` when records/store.py, the module that exports ``RunStore``, is loaded):
    a store is returned as it is, so ``RunStore(run)`` takes a store, a path or a URL."""

    opener: Callable[..., RunStore] | None = None

    # ------------------------------------------------------------ how it is named
    @abstractmethod
    def __str__(self) -> str:
        """The run as a command names it: a folder's path as given, or the run's ``s3://`` URL."""

    @property
    def name(self) -> str:
        """The run's own name (its folder's, or its prefix's last part): a command's ``--name``."""
        return self.out_and_name()[1]

    @abstractmethod
    def out_and_name(self) -> tuple[str, str]:
        """The run's ``--out`` and ``--name``: a folder's parent and name, or the URL split at its last ``/``."""

    @abstractmethod
    def address(self) -> str:
        """Where another process (a Ray task, MLflow's tag, a rating list) finds the run again: a
        folder's absolute path, or the run's URL."""

    @abstractmethod
    def above(self) -> list[RunStore]:
        """The stores one and two levels above this one (nearest first, each once): where the run
        that holds this one would be (``kinds.parent_run`` asks their kinds)."""

    @abstractmethod
    def my_holder(self) -> str:
        """What ``holder`` says when this process holds a lock of this kind of store."""

    @abstractmethod
    def file_argument(self, name: str) -> str | None:
        """The file ``name`` as a command's file argument (a folder's file path), or None where a
        command cannot read it by name (a run on object storage: the printed command names it)."""

    @abstractmethod
    def own_folder(self) -> Path | None:
        """The local folder that is the run itself, whose files may be mended in place (repair),
        or None: a run whose files are objects (repaired through its commits)."""

    def blocked(self) -> bool:
        """Whether something that is not a run is in the run's place (a file where its folder goes)."""
        return False

    # ------------------------------------------------------------ small files
    @abstractmethod
    def where(self, name: str) -> str:
        """Where the file ``name`` is, as a person types it in a command."""

    @abstractmethod
    def local(self, name: str) -> Path:
        """A local path of the file ``name``, for the libraries that only read or write a path."""

    @abstractmethod
    def exists(self, name: str) -> bool:
        """Whether the file (or folder) ``name`` is there."""

    @abstractmethod
    def read_bytes(self, name: str) -> bytes:
        """The file's bytes; ``FileNotFoundError`` (an ``OSError``) when it is not there."""

    @abstractmethod
    def write_bytes(self, name: str, data: bytes) -> None:
        """Write the file whole: the old one or the new one is there at every moment."""

    def read_text(self, name: str) -> str:
        """The file's text (UTF-8); ``FileNotFoundError`` when it is not there."""
        return self.read_bytes(name).decode("utf-8")

    def write_text(self, name: str, text: str) -> None:
        """Write the file whole, as ``write_bytes``."""
        self.write_bytes(name, text.encode("utf-8"))

    @abstractmethod
    def is_there(self) -> bool:
        """Whether the run (or folder, or prefix) is there at all."""

    @abstractmethod
    def names(self, prefix: str, suffix: str) -> list[str]:
        """The names of its files (not in a folder) that start with ``prefix`` and end with ``suffix``, sorted."""

    @abstractmethod
    def folders(self, prefix: str) -> list[str]:
        """The names of its folders that start with ``prefix`` (a training run's ``gen-``), sorted."""

    @abstractmethod
    def remove(self, *names: str) -> None:
        """Remove these files or folders (those not there are skipped). Removing a game table
        removes the run's records: the side tables go with them (``--fresh``)."""

    @abstractmethod
    def sub(self, name: str) -> RunStore:
        """The store of a run nested in this one (a training run's ``gen-NNN/selfplay``)."""

    # ------------------------------------------------------------ parts
    @abstractmethod
    def part_files(self, table: str) -> list[Path]:
        """The committed part files of one table (a game table or a side table) as local files a
        reader reads (sorted)."""

    @abstractmethod
    def committed(self) -> list[str]:
        """The ids of the committed parts of the game tables, in order."""

    @abstractmethod
    def part_ids(self) -> set[str]:
        """The ids of every game part there, committed or not (a writer's next number comes after them)."""

    @abstractmethod
    def write_part(self, number: int | str, tables: dict[str, Iterable[pa.Table]]) -> None:
        """Write and commit part ``number`` of the four game tables."""

    @abstractmethod
    def part_source(self, part: int | str) -> Callable[[str], Any] | None:
        """For a committed game part: a function giving each table's source for ``pq.read_table``
        (a path, or its checked bytes); None when the part is not committed."""

    @abstractmethod
    def has_records(self) -> bool:
        """Whether any game part is there (committed or not)."""

    @abstractmethod
    def clean_orphans(self) -> list:
        """Remove what no commit lists (game and side tables alike: a writer killed mid-part) and
        finish what a commit lists; returns what was removed. Under the run's lock."""

    @abstractmethod
    def view(self, parts: bool = True) -> Path:
        """A local folder that reads as the run (its small files and, with ``parts``, its
        committed parts, side tables' too)."""

    def viewed(self, parts: bool = True) -> RunStore:
        """The store of the run's local view (``view``): a folder is its own; a run on object
        storage is read, once, into a folder whose store a reader of many files (a kind's status)
        reads without a request a file."""
        return RunStore(self.view(parts))

    # ------------------------------------------------------------ side tables
    @abstractmethod
    def write_side(self, table: str, data: pa.Table) -> str:
        """Commit ``data`` as a new part of the side table ``table`` (records.names.SIDE_TABLES),
        into the run as it is (finished or being played: no lock taken); returns its part id."""

    @abstractmethod
    def side_parts(self, table: str) -> list[str]:
        """The ids of the committed parts of the side table ``table``, in order."""

    def side_counts(self) -> dict[str, tuple[int, int]]:
        """``{side table: (parts, rows)}`` of the side tables the run holds parts of (status)."""
        counts = {}
        for table in SIDE_TABLES:
            files = self.part_files(table)
            if files:
                counts[table] = (len(files), sum(pq.read_metadata(f).num_rows for f in files))
        return counts

    # ------------------------------------------------------------ the lock
    @abstractmethod
    def lock(self):
        """A context manager: the run's writer lock while the block runs; ``RunInUse`` when
        another process holds it."""

    @abstractmethod
    def holder(self) -> str | None:
        """Who holds the run's lock now, or None."""
