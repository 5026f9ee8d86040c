"""The runs under the served folders: found by walking them, named in URLs by a path under one of
them, and mapped back to a folder only when it lies inside (``Served.folder``).

A served folder (``azul serve RUNS...``) is known by a label, its own name (a second folder of
the same name gets ``-2``...); a run's URL path is that label and the run's folders below it:
``/run/runs/quick``. A path is refused (None) when a part is empty, ``.`` or ``..`` (percent-
decoded already: ``%2e%2e`` is ``..``), or holds a backslash or a NUL, when its label serves
nothing, and when the folder it names, symlinks resolved, lies outside the served folder: a URL
never reads a file outside RUNS.

A run folder holds ``run.json``, a ``config.yaml`` or records (``azul league status`` asks the
same); a rating list holds ``list.json`` (analysis/rating_list.py). The walk does not go into a
run (the runs a training run holds are its kind's ``nested_runs``), nor into hidden folders,
quarantine or record tables.

A served ``s3://BUCKET/PREFIX`` (records/s3store.py) is walked the same way, a level at a time
(``Objects.level``: one LIST a folder): a run there holds ``run.json`` or committed parts
(``_commits/``). Its runs are known only from that walk, kept ``WALK_AGE`` seconds: a URL path
names a run on object storage only when the walk found it (so no URL reads anything else), and
its ``Found`` carries the run's store, whose local view (``Found.local``) the pages read. While a
prefix cannot be listed (``Served.unreadable``: the server down, no bucket, access refused), a path
under it is neither a run nor "no such run": the pages say the store is unavailable (503).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.rating_list import LIST_FILE
from records.columns import TABLES
from records.names import QUARANTINE, RUN_FILE
from records.parts import has_records
from records.store import RunStore, open_root

MAX_DEPTH = 4  # folders below a served folder the walk looks into for runs
WALK_AGE = 5.0  # seconds the walk of an s3:// prefix is kept (a new run shows within it)
NOT_WALKED = (QUARANTINE, *TABLES, "_commits", "_staged")  # records/s3store.py's COMMITS and STAGED
_VIEW_LOCKS: dict[str, threading.Lock] = {}
_VIEW_LOCKS_LOCK = threading.Lock()


def view_lock(found: Found) -> threading.Lock:
    """The lock a run on object storage's data is made under: its local view is one folder, which
    two threads must not download into at once (a local run's lock is a fresh one: no wait)."""
    if found.store is None:
        return threading.Lock()
    with _VIEW_LOCKS_LOCK:
        return _VIEW_LOCKS.setdefault(str(found.store), threading.Lock())


@dataclass
class Found:
    """A run (or a rating list) under a served folder: its folder, its URL path, the runs it holds."""

    folder: Path | None  # None for a run on object storage (its store)
    url: str
    rating_list: bool = False
    nested: list[Found] = field(default_factory=list)
    store: Any = None  # a run on object storage: its records.s3store.S3RunStore

    @property
    def where(self) -> str | Path:
        """The run as a command names it: its folder, or its ``s3://`` URL."""
        return self.folder if self.store is None else str(self.store)

    def local(self) -> Path:
        """A local folder that reads as the run now: its folder, or its store's local view (its
        small files and committed parts, downloaded as they change; under ``view_lock``)."""
        return self.folder if self.store is None else self.store.view()


def is_run(folder: Path) -> bool:
    """A run folder: its run.json, or records (a folder from before run.json). A config.yaml alone
    is not one: MLflow keeps a copy of each run's under mlartifacts/, beside the runs."""
    return RunStore(folder).exists(RUN_FILE) or has_records(folder)


def is_rating_list(folder: Path) -> bool:
    return (folder / LIST_FILE).is_file()


def refused(parts: list[str]) -> bool:
    """Whether a URL path's parts are refused: an empty part, ``.``, ``..``, a backslash, a NUL."""
    return any(p in ("", ".", "..") or "\\" in p or "\0" in p for p in parts)


class Served:
    """The folders ``azul serve`` serves, each by its label (an ``s3://`` prefix: by its last part)."""

    def __init__(self, roots: list[Path | str]):
        self.roots: dict[str, Path] = {}  # the local folders
        self.stores: dict[str, Any] = {}  # the prefixes on object storage (S3RunStore)
        self.problems: dict[str, str] = {}  # a prefix that could not be walked: why
        self._walked: dict[str, tuple[float, list[Found]]] = {}
        self._walk_lock = threading.Lock()
        for root in roots:
            where = open_root(root)  # a folder, or a prefix on object storage
            store = None if where.folder() is not None else where.store
            root = Path(root).resolve() if store is None else store
            base = (Path(root).name or "root") if store is None else str(store).rstrip("/").rsplit("/", 1)[-1]
            label, n = base, 1
            while label in self.roots or label in self.stores:
                n += 1
                label = f"{base}-{n}"
            if store is None:
                self.roots[label] = root
            else:
                self.stores[label] = store

    def labels(self) -> list[str]:
        """The served folders' and prefixes' labels, in the order given."""
        return [*self.roots, *self.stores]

    def inside(self, path: Path, root: Path) -> bool:
        """Whether ``path``, symlinks resolved, is ``root`` or lies below it."""
        try:
            return path.resolve().is_relative_to(root)
        except (OSError, RuntimeError):  # a symlink loop
            return False

    def url(self, folder: Path) -> str:
        """The URL path of a folder under a served one (``label/a/b``)."""
        folder = Path(folder).resolve()
        for label, root in self.roots.items():
            if folder.is_relative_to(root):
                rel = folder.relative_to(root).as_posix()
                return label if rel == "." else f"{label}/{rel}"
        raise ValueError(f"{folder} is not under a served folder")

    def folder(self, path: str) -> Path | None:
        """The folder a URL path names, or None: a refused path, or one that is not a folder
        inside the served one it names."""
        parts = path.split("/")
        if refused(parts):
            return None
        root = self.roots.get(parts[0])
        if root is None:
            return None
        folder = root.joinpath(*parts[1:])
        if not self.inside(folder, root) or not folder.is_dir():
            return None
        return folder.resolve()

    def run(self, path: str) -> Path | None:
        """The run folder (or rating list) a URL path names, or None."""
        folder = self.folder(path)
        return folder if folder is not None and (is_run(folder) or is_rating_list(folder)) else None

    def unreadable(self, path: str) -> tuple[str, str] | None:
        """The served prefix a URL path names (its ``s3://`` URL) and why its last walk failed
        (unreachable, no bucket, refused), or None: while it cannot be listed, no path under it is
        known to be a run or not, which ``found``'s None ("no such run") cannot say."""
        parts = path.split("/")
        if parts[0] not in self.stores or refused(parts):
            return None
        self._walk_store(parts[0])  # the walk kept WALK_AGE seconds: no request when found() just walked
        problem = self.problems.get(parts[0])
        return None if problem is None else (str(self.stores[parts[0]]), problem)

    def found(self, path: str) -> Found | None:
        """The run (with the runs it holds) or rating list a URL path names, or None."""
        parts = path.split("/")
        if parts[0] in self.stores:  # on object storage: only a run the walk found
            if refused(parts):
                return None
            for run in self._walk_store(parts[0]):
                for one in (run, *run.nested):
                    if one.url == path:
                        return one
            return None
        folder = self.run(path)
        if folder is None:
            return None
        root = self.roots[path.split("/")[0]]
        return self._run(folder, root) if is_run(folder) else Found(folder, self.url(folder), rating_list=True)

    def find(self) -> list[Found]:
        """Every run and rating list under the served folders, in name order, each training run
        with the runs it holds; then the runs under each served prefix on object storage."""
        found: list[Found] = []
        for root in self.roots.values():
            found += self._walk(root, root, 0)
        for label in self.stores:
            found += self._walk_store(label)
        return found

    def _walk_store(self, label: str) -> list[Found]:
        """The runs under a served prefix, walked again when the last walk is ``WALK_AGE`` old; a
        prefix that cannot be listed (no bucket, refused) has no runs and its ``problems`` line."""
        with self._walk_lock:
            kept = self._walked.get(label)
            if kept is not None and time.monotonic() - kept[0] < WALK_AGE:
                return kept[1]
            try:
                runs = self._walk_s3(self.stores[label], label, 0)
                self.problems.pop(label, None)
            except OSError as exc:  # records.objects.ObjectStoreError: it names the object, not the endpoint
                runs, self.problems[label] = [], str(exc)
            self._walked[label] = (time.monotonic(), runs)
            return runs

    def _walk_s3(self, store, url: str, depth: int) -> list[Found]:
        files, folders = store.objects.level("")
        if RUN_FILE in files or "_commits" in folders:
            return [self._s3_run(store, url)]
        if depth >= MAX_DEPTH:
            return []
        found = []
        for name in folders:
            if name.startswith(".") or name in NOT_WALKED:
                continue
            try:
                inner = store.sub(name)
            except ValueError:  # a key no s3:// URL can name (a '..' part, a control character)
                continue
            found += self._walk_s3(inner, f"{url}/{name}", depth + 1)
        return found

    def _s3_run(self, store, url: str) -> Found:
        from kinds import kind_of

        run = Found(None, url, store=store)
        try:
            with view_lock(run):  # its view is written by the pages' threads too
                kind = kind_of(store)
            nested = kind.nested_runs(store) if kind.nests else []
        except (ValueError, OSError):  # an unknown kind, a store that cannot be read: the index row says so
            nested = []
        for rel in nested:
            try:
                run.nested.append(Found(None, f"{url}/{rel}", store=store.sub(rel)))
            except ValueError:
                continue
        return run

    def _walk(self, folder: Path, root: Path, depth: int) -> list[Found]:
        if not self.inside(folder, root):  # a symlink that leads out
            return []
        if is_run(folder):
            return [self._run(folder, root)]
        if is_rating_list(folder):
            return [Found(folder, self.url(folder), rating_list=True)]
        if depth >= MAX_DEPTH:
            return []
        try:
            children = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")
                              and p.name not in (QUARANTINE, *TABLES))
        except OSError:
            return []
        return [f for child in children for f in self._walk(child, root, depth + 1)]

    def _run(self, folder: Path, root: Path) -> Found:
        from kinds import kind_of

        run = Found(folder, self.url(folder))
        try:
            kind = kind_of(RunStore(folder))
            nested = kind.nested_runs(RunStore(folder)) if kind.nests else []
        except (ValueError, OSError):  # an unknown kind: the index row says so
            nested = []
        for rel in nested:
            inner = folder / rel
            if self.inside(inner, root):
                run.nested.append(Found(inner, self.url(inner)))
        return run
