"""A run on object storage: ``S3RunStore``, ``RunStore``'s methods over ``records.objects.Objects``.

The run ``s3://BUCKET/PREFIX/<name>/`` holds what a run folder holds (SPEC 5, 10): its small files
by name, and each table's parts at ``<table>/part-<id>.parquet``. An object store has no rename, so
a part is committed otherwise (docs/league.md, "Records on object storage"):

1. its four tables are uploaded under ``_staged/<id>.<random>/<table>.parquet``, where no reader's
   view of a table and no user's glob over ``games/*.parquet`` looks;
2. the commit ``_commits/<id>.json`` (each table's staged and public object, size and MD5) is
   created with ``If-None-Match: *``: of two writers of one id, one commits and the other is refused;
3. each table is copied on the server to its public name ``<table>/part-<id>.parquet`` (for the
   user's own globs), and the staged objects removed.

Readers read only the parts the commits list, each checked against its commit's MD5 (the public
copy, or the staged object while the copy is not done): never a listing of the tables' prefixes.
``view()`` is a local folder that reads as the run (its small files, its committed parts): every
reader made for folders (DuckDB, Polars, pyarrow) reads that. Committed parts are immutable, so a
part is downloaded once into the cache (``AZUL_S3_CACHE``, else ``~/.cache/azul/s3``), keyed by
the run's URL and the commit's ETag. The lock is records/s3lock.py's.

A side table (records.names.SIDE_TABLES, records/side.py) is committed the same way in a namespace
of its own: staged under ``_staged/<table>/<id>.<random>/``, committed by ``_commits/<table>/<id>.json``
(create-only), copied to ``<table>/part-<id>.parquet``; its ids carry a writer's random token, and
no lock is needed, so a review writes beside a live driver.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import secrets
import socket
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa

from .columns import TABLES
from .folder import replace_bytes
from .names import LOCK_FILE, QUARANTINE, SIDE_TABLES
from .objects import Objects, S3Url, parse_url
from .parts import PART, part_bytes, part_name, part_tables
from .interface import RunStore
from .side import check_side_table, next_side_id, with_side_tables
from .urls import VIEW_SMALL, VIEW_URL, as_typed

COMMITS = "_commits/"  # a part's commit: _commits/<id>.json
STAGED = "_staged/"  # a part's tables before its commit: _staged/<id>.<random>/<table>.parquet
VIEW_COMMITS = ".commits.json"  # in a view: the commit (ETag) each downloaded part came from
VIEW_LOCK = ".view.lock"  # in a view: held (flock) by the process refreshing it
# the view's own files, not the run's (VIEW_URL: the run's URL, by which readers name the view;
# VIEW_SMALL: the ETag of each small file downloaded)
VIEW_FILES = (VIEW_URL, VIEW_COMMITS, VIEW_SMALL, VIEW_LOCK)


def cache_root() -> Path:
    """Where views of runs on object storage are kept (``AZUL_S3_CACHE`` or ``~/.cache/azul/s3``)."""
    return Path(os.environ.get("AZUL_S3_CACHE") or Path.home() / ".cache" / "azul" / "s3")


def _md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


def _json_in(path: Path) -> dict:
    """The JSON object a view's own file holds ({} when it is not there or not whole)."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


SIDE_STAGED_S = 3600.0  # a side table's staged part older than this, with no commit, is an orphan


def _stale_side(name: str) -> bool:
    """Whether the staged object ``name`` is a game part's (its writer held the lock), or a side
    table's staged by a writer long gone (``_staged/<table>/<id>.<unix time>/...``, no commit)."""
    first, _, rest = name[len(STAGED):].partition("/")
    if first not in SIDE_TABLES:
        return True
    try:
        return time.time() - float(rest.split("/", 1)[0].split(".", 1)[1]) > SIDE_STAGED_S
    except (IndexError, ValueError):
        return True


def _each(work, items) -> list:
    """``work`` of every item, on threads (requests wait on the network; Parquet encoding releases
    the GIL); the results in order, the first error raised."""
    items = list(items)
    with ThreadPoolExecutor(max_workers=max(1, len(items))) as pool:
        return list(pool.map(work, items))


class S3RunStore(RunStore):
    """One run under ``s3://BUCKET/PREFIX``: its small files by name, its nested runs, its parts."""

    def __init__(self, url: str | S3Url, objects: Objects | None = None):
        self.url = url if isinstance(url, S3Url) else parse_url(as_typed(url))
        self.objects = objects if objects is not None else Objects(self.url)
        self.held = None  # the lock (records.s3lock.S3Lock) while this process holds it

    def __repr__(self) -> str:
        return f"S3RunStore({str(self.url)!r})"

    def __str__(self) -> str:
        return str(self.url)

    def __eq__(self, other) -> bool:
        return isinstance(other, S3RunStore) and other.url == self.url

    def __hash__(self) -> int:
        return hash(self.url)

    @property
    def root(self) -> str:
        return str(self.url)

    def out_and_name(self) -> tuple[str, str]:
        out, _, name = str(self).rpartition("/")
        return out, name

    def address(self) -> str:
        return str(self.url)

    def above(self) -> list[RunStore]:
        """The prefixes one and two above (the bucket's top stays where it is)."""
        ups, url = [], self.url
        for _ in range(2):
            if not url.prefix:
                break
            url = S3Url(url.bucket, url.prefix.rpartition("/")[0])
            ups.append(S3RunStore(url, Objects(url, self.objects._s3)))
        return ups

    def my_holder(self) -> str:
        return f"{os.getpid()} on {socket.gethostname()}"

    def file_argument(self, name: str) -> None:
        return None  # a command reads its settings from a local file

    def own_folder(self) -> None:
        return None

    def where(self, name: str) -> str:
        """The ``s3://`` URL of the object ``name``."""
        return self.objects.where(name)

    def exists(self, name: str) -> bool:
        """Whether the object ``name`` is there, or objects under ``name/`` (a table, the quarantine)."""
        return self.objects.etag(name) is not None or bool(self.objects.entries(name + "/", most=1))

    def read_bytes(self, name: str) -> bytes:
        """The object's bytes; ``FileNotFoundError`` when it is not there."""
        return self.objects.get(name)[0]

    def read_text(self, name: str) -> str:
        return self.read_bytes(name).decode("utf-8")

    def write_bytes(self, name: str, data: bytes) -> None:
        """Write the object whole (a PUT: a reader finds the old object or the new one)."""
        self.objects.put(name, data)

    def write_text(self, name: str, text: str) -> None:
        self.write_bytes(name, text.encode("utf-8"))

    def is_there(self) -> bool:
        """Whether the run holds any object at all."""
        return bool(self.objects.entries("", most=1))

    def names(self, prefix: str, suffix: str) -> list[str]:
        """The names of its objects (not under a folder) that start with ``prefix`` and end with ``suffix``."""
        return sorted(n for n in self.objects.entries(prefix, delimiter=True)
                      if "/" not in n and n.endswith(suffix))

    def folders(self, prefix: str) -> list[str]:
        """The names of its folders (objects under ``NAME/``) that start with ``prefix``, sorted."""
        return sorted({n.split("/", 1)[0] for n in self.objects.entries(prefix) if "/" in n})

    def remove(self, *names: str) -> None:
        """Remove these objects, and everything under each name as a folder (a record table's
        name: every part's commit first, then the staged objects)."""
        if set(names) & set(TABLES):  # the run's records: the side tables' commits and parts too
            names = (COMMITS.rstrip("/"), STAGED.rstrip("/"), *with_side_tables(names))
        for name in names:
            self.objects.delete(name)
            for inner in self.objects.entries(name + "/"):
                self.objects.delete(inner)

    def sub(self, name: str) -> S3RunStore:
        """The store of a run nested in this one."""
        return S3RunStore(self.url.join(name), Objects(self.url.join(name), self.objects._s3))

    # ------------------------------------------------------------ parts
    def commits(self, table: str | None = None) -> dict[str, str]:
        """``{part id: commit object's ETag}`` of the committed parts (of the game tables, or of
        the side table ``table``)."""
        found = {}
        inner = COMMITS if table is None else f"{COMMITS}{table}/"
        for name, (etag, _) in self.objects.entries(inner).items():
            part = name[len(inner):].removesuffix(".json")
            if name.endswith(".json") and PART.match(part_name(part)):
                found[part] = etag
        return found

    def committed(self) -> list[str]:
        """The ids of the committed parts, in order (their commits, never the tables' listing)."""
        return sorted(self.commits())

    def commit_of(self, part: str) -> dict:
        """What part ``part``'s commit lists: ``{"part": id, "tables": {table: {"object", "staged",
        "size", "md5"}}}`` (a side table's part: ``TABLE/ID``)."""
        return json.loads(self.objects.get(f"{COMMITS}{part}.json")[0])

    def part_source(self, part: int | str):
        """Each table's checked bytes of a committed part (a function of the table), or None."""
        try:
            commit = self.commit_of(part)
        except FileNotFoundError:
            return None
        return lambda name: pa.BufferReader(self.part_data(part, name, commit))

    def has_records(self) -> bool:
        """Whether any part is there, committed or staged."""
        return bool(self.part_ids())

    def part_ids(self) -> set[str]:
        """The ids of every part committed or staged (a writer's next number comes after them)."""
        staged = {n[len(STAGED):].split("/", 1)[0].split(".", 1)[0] for n in self.objects.entries(STAGED)}
        return set(self.commits()) | {p for p in staged if PART.match(part_name(p))}

    def write_part(self, number: int | str, tables: dict[str, Iterable[pa.Table]]) -> None:
        """Stage part ``number``'s four tables, commit it (create-only), copy it to its public names.
        ``FileExistsError`` when a commit of that id is there already (another writer's)."""
        if self.held is not None:
            self.held.check()  # a driver whose lock was taken over commits nothing more
        part = number if isinstance(number, str) else f"{number:06d}"
        staged = f"{STAGED}{part}.{secrets.token_hex(4)}/"

        def stage(item: tuple[str, pa.Table]) -> tuple[str, dict]:
            name, table = item
            data = part_bytes(table)
            self.objects.put(f"{staged}{name}.parquet", data)
            return name, {"object": f"{name}/{part_name(part)}", "staged": f"{staged}{name}.parquet",
                          "size": len(data), "md5": _md5(data)}

        listed = dict(_each(stage, part_tables(tables).items()))  # the four tables at once
        commit = json.dumps({"part": part, "tables": listed}, indent=1).encode()
        if self.objects.put_new(f"{COMMITS}{part}.json", commit) is None:
            for entry in listed.values():
                self.objects.delete(entry["staged"])
            raise FileExistsError(f"{self.where(COMMITS + part + '.json')}: part {part} is committed already")
        self.publish(listed)

    def publish(self, listed: dict[str, dict]) -> None:
        """Copy a commit's staged objects to their public names, then remove them (after a driver
        died between its commit and its copies, ``clean_orphans`` finishes them)."""
        _each(lambda entry: self.objects.copy(entry["staged"], entry["object"]), listed.values())
        _each(lambda entry: self.objects.delete(entry["staged"]), listed.values())

    def part_data(self, part: str, name: str, commit: dict | None = None) -> bytes:
        """The bytes of table ``name`` of committed part ``part``, as its commit says they are
        (the public object, else the staged one); ``ValueError`` when neither is."""
        entry = (commit or self.commit_of(part))["tables"][name]
        # the public object, else the staged one; when both were missing, the copy was made and
        # the staged object removed between the two reads (``publish``): the public one is there now
        for key in (entry["object"], entry["staged"], entry["object"]):
            try:
                data = self.objects.get(key)[0]
            except FileNotFoundError:
                continue
            if len(data) == entry["size"] and _md5(data) == entry["md5"]:
                return data
        raise ValueError(f"{self.where(entry['object'])}: its bytes are not the ones its commit lists "
                         "(damaged or missing)")

    def clean_orphans(self) -> list[str]:
        """Finish the copies of committed parts; remove staged objects no commit lists. Returns the
        objects removed (under the run's lock: a writer's staged part is not an orphan yet)."""
        listed: dict[str, dict] = {}
        commits = [f"{COMMITS}{p}.json" for p in self.committed()]
        commits += [f"{COMMITS}{t}/{p}.json" for t in SIDE_TABLES for p in self.side_parts(t)]
        for name in commits:
            for entry in json.loads(self.objects.get(name)[0])["tables"].values():
                listed[entry["staged"]] = entry
        removed = []
        for name in self.objects.entries(STAGED):
            entry = listed.get(name)
            if entry is None and not _stale_side(name):
                continue  # a side table's writer (no lock taken) between its upload and its commit
            if entry is not None:
                there = self.objects.entries(entry["object"]).get(entry["object"])
                if there is None or there[1] != entry["size"]:
                    self.objects.copy(name, entry["object"])
            self.objects.delete(name)
            if entry is None:
                removed.append(name)
        return removed

    def uncommit(self, part: str) -> None:
        """Remove part ``part``'s commit: from then on no reader reads it (its objects stay)."""
        self.objects.delete(f"{COMMITS}{part}.json")

    def quarantine(self, part: str, why_by_table: dict[str, str]) -> list[tuple[str, str, str]]:
        """Uncommit part ``part`` (its commit removed first: no reader reads it from then on) and move
        its damaged tables' objects under ``quarantine/<table>/``; its readable tables are removed
        (their games are played again). Returns ``(object, moved to, why)`` of each moved."""
        commit = self.commit_of(part)
        self.uncommit(part)
        moved = []
        for name, entry in commit["tables"].items():
            there = [key for key in (entry["object"], entry["staged"]) if self.objects.etag(key) is not None]
            if name in why_by_table and there:
                target, n = f"{QUARANTINE}/{name}/{part_name(part)}", 1
                while self.objects.etag(target) is not None:  # an earlier repair's: keep both
                    target, n = f"{QUARANTINE}/{name}/{part_name(part)}.{n}", n + 1
                self.objects.copy(there[0], target)
                moved.append((self.where(there[0]), self.where(target), why_by_table[name]))
            for key in there:
                self.objects.delete(key)
        return moved

    # ------------------------------------------------------------ the local view
    def view(self, parts: bool = True) -> Path:
        """A local folder that reads as the run now: its small files and (``parts``) its committed
        parts (each downloaded once; a part no longer committed is removed from it). Raises
        ``records.checks.DamagedRecords`` for a committed part whose bytes are not its commit's.

        Several processes (a command, ``azul serve``, a notebook) may refresh one run's view at
        once: each refresh holds the view's lock (``VIEW_LOCK``, an ``flock`` released when its
        process dies), so what ``VIEW_COMMITS`` and ``VIEW_SMALL`` say is always what the folder
        holds, and each file is written under a temporary name of its writer's own and renamed
        (records.folder.replace_bytes): a reader of the folder finds a whole file or none."""
        folder = cache_root() / hashlib.sha256(str(self.url).encode()).hexdigest()[:24]
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / VIEW_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._refresh(folder, parts)
        finally:
            os.close(fd)  # gives the lock back
        return folder

    def _refresh(self, folder: Path, parts: bool) -> None:
        """``view``'s work, under the view's lock."""
        from .checks import DamagedRecords

        if not (folder / VIEW_URL).exists():
            replace_bytes(folder / VIEW_URL, (str(self.url) + "\n").encode())
        small = {n: e for n, (e, _) in self.objects.entries("", delimiter=True).items() if n != LOCK_FILE}
        had_small = _json_in(folder / VIEW_SMALL)
        for path in folder.iterdir():
            if path.is_file() and path.name not in small and path.name not in VIEW_FILES:
                path.unlink(missing_ok=True)
        for name, etag in small.items():
            if had_small.get(name) != etag or not (folder / name).exists():
                replace_bytes(folder / name, self.read_bytes(name))
        replace_bytes(folder / VIEW_SMALL, json.dumps(small).encode())
        if not parts:
            return
        had = _json_in(folder / VIEW_COMMITS)
        commits = self.commits()
        for name in TABLES:
            (folder / name).mkdir(exist_ok=True)
            for path in (folder / name).iterdir():
                m = PART.match(path.name)
                if m is None or m.group(1) not in commits or commits[m.group(1)] != had.get(m.group(1)):
                    path.unlink(missing_ok=True)
        for part, etag in sorted(commits.items()):
            if had.get(part) == etag and all((folder / n / part_name(part)).exists() for n in TABLES):
                continue
            commit = self.commit_of(part)

            def fetch(name: str, part=part, commit=commit) -> bytes | ValueError:
                try:
                    return self.part_data(part, name, commit)
                except ValueError as exc:
                    return exc

            for name, data in zip(TABLES, _each(fetch, TABLES)):  # the four tables at once
                if isinstance(data, ValueError):
                    raise DamagedRecords(str(self.url), self.where(commit["tables"][name]["object"]),
                                         str(data).split(": ", 1)[1])
                replace_bytes(folder / name / part_name(part), data)
            had[part] = etag
            replace_bytes(folder / VIEW_COMMITS, json.dumps(had).encode())
        had = {p: e for p, e in had.items() if p in commits}
        replace_bytes(folder / VIEW_COMMITS, json.dumps(had).encode())
        self._refresh_side(folder)

    def _refresh_side(self, folder: Path) -> None:
        """The side tables' committed parts in the view (each downloaded once, keyed ``table/id``
        in ``VIEW_COMMITS``; a part no longer committed removed)."""
        from .checks import DamagedRecords

        had = _json_in(folder / VIEW_COMMITS)
        for table in SIDE_TABLES:
            commits = self.commits(table)
            there = folder / table
            if not commits and not there.is_dir():
                continue
            there.mkdir(exist_ok=True)
            for path in there.iterdir():
                m = PART.match(path.name)
                if m is None or commits.get(m.group(1)) != had.get(f"{table}/{m.group(1)}"):
                    path.unlink(missing_ok=True)
            for part, etag in sorted(commits.items()):
                key = f"{table}/{part}"
                if had.get(key) == etag and (there / part_name(part)).exists():
                    continue
                commit = self.commit_of(key)
                try:
                    data = self.part_data(key, table, commit)
                except ValueError as exc:
                    raise DamagedRecords(str(self.url), self.where(commit["tables"][table]["object"]),
                                         str(exc).split(": ", 1)[1]) from None
                replace_bytes(there / part_name(part), data)
                had[key] = etag
                replace_bytes(folder / VIEW_COMMITS, json.dumps(had).encode())

    # ------------------------------------------------------------ side tables
    def side_parts(self, table: str) -> list[str]:
        """The ids of the side table's committed parts (its commits), in order."""
        return sorted(self.commits(table))

    def write_side(self, table: str, data: pa.Table) -> str:
        """Stage the part, commit it create-only in the table's own namespace, copy it to its public
        name; a commit of that id there already (another writer's) takes the next id."""
        check_side_table(table)
        payload = part_bytes(data)
        while True:
            part = next_side_id(self.part_ids_of(table))
            staged = f"{STAGED}{table}/{part}.{int(time.time())}/{table}.parquet"
            self.objects.put(staged, payload)
            listed = {table: {"object": f"{table}/{part_name(part)}", "staged": staged,
                              "size": len(payload), "md5": _md5(payload)}}
            commit = json.dumps({"part": part, "tables": listed}, indent=1).encode()
            if self.objects.put_new(f"{COMMITS}{table}/{part}.json", commit) is None:
                self.objects.delete(staged)
                continue
            self.publish(listed)
            return part

    def part_ids_of(self, table: str) -> set[str]:
        """The ids of the side table's parts, committed or staged."""
        inner = f"{STAGED}{table}/"
        staged = {n[len(inner):].split("/", 1)[0].split(".", 1)[0] for n in self.objects.entries(inner)}
        return set(self.commits(table)) | {p for p in staged if PART.match(part_name(p))}

    def local(self, name: str) -> Path:
        """A local copy of the object ``name`` (in the view), for libraries that read a path."""
        return self.view() / name

    def part_files(self, table: str) -> list[Path]:
        """The committed part files of one table, as local files a reader reads (sorted)."""
        folder = self.view() / table
        return sorted(folder.glob("*.parquet"))

    # ------------------------------------------------------------ the lock
    @contextmanager
    def lock(self) -> Iterator[None]:
        """The run's writer lock (records/s3lock.py) while the block runs; ``RunInUse`` when another
        driver holds it."""
        from .s3lock import S3Lock

        held = S3Lock(self.objects, str(self.url))
        held.take()
        self.held = held
        try:
            yield
        finally:
            self.held = None
            held.release()

    def holder(self) -> str | None:
        """Who holds the run's lock now (``PID on HOST``), or None (free, stale or its process gone)."""
        from .s3lock import lock_holder

        return lock_holder(self.objects)
