"""The run folder beside its part files: the run's id (``run.json``), the lock and the quarantine.

``run.json`` holds the ``run_id`` made when the folder was created (``new_run_id``: the league's
name, the UTC time and a random suffix); ``folder_run_ids`` tells which runs a folder's records
hold (older folders have no ``run.json``: their records say). ``quarantine`` moves a file a repair
cannot read to ``<run>/quarantine/<table>/``, never deleting it. ``take_lock`` is the one writer's
lock (``.lock``: a lock held while a driver writes the run, with its pid inside, which
``lock_holder`` reads). ``run_kind`` says what the folder holds: a ``league``, a ``study``, an
``sprt`` or a ``tune`` (run.json's ``kind``; older folders: their study or SPRT file, if they have one).
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import secrets
import struct
from datetime import datetime, timezone
from pathlib import Path

import pyarrow.parquet as pq

from .errors import AzulError
from .interface import RunStore
from .names import LOCK_FILE, QUARANTINE, RUN_FILE, SPRT_FILE, STUDY_FILE, TUNE_FILE
from .parts import committed_parts, parquet_files, part_path

# What a folder from before run.json kept its kind holds, by the settings file it has (the kinds
# themselves are declared in kinds/: run.json's kind names one of them)
LEGACY_KIND_FILES = (("study", STUDY_FILE), ("sprt", SPRT_FILE), ("tune", TUNE_FILE))
_KIND_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")


class RunInUse(AzulError, RuntimeError):
    """Another process holds the run folder's lock (``pid``: its pid as written there, or "?")."""

    def __init__(self, folder: Path, pid: str):
        super().__init__(f"{folder}: another driver (pid {pid}) is writing this run")
        self.pid = pid


def take_lock(folder: Path) -> int:
    """Lock the run folder for this process (made if missing); returns the lock's file descriptor,
    which holds the lock until it is closed. Raises ``RunInUse`` when another process holds it."""
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, _flock(fcntl.F_WRLCK))
    except OSError as exc:
        if exc.errno not in (errno.EAGAIN, errno.EACCES):
            os.close(fd)
            raise
        other = _pid_in(fd)
        os.close(fd)
        raise RunInUse(folder, other) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    return fd


def lock_holder(folder: str | Path) -> str | None:
    """The pid of the process writing the run now, or None (the lock is free). Asks without taking
    the lock (``F_OFD_GETLK``), so a reader never makes a driver starting that moment fail."""
    try:
        fd = os.open(Path(folder) / LOCK_FILE, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        answer = fcntl.fcntl(fd, fcntl.F_OFD_GETLK, _flock(fcntl.F_WRLCK))
        return None if struct.unpack(_FLOCK, answer)[0] == fcntl.F_UNLCK else _pid_in(fd)
    finally:
        os.close(fd)


# The lock is an open file description lock on the whole of .lock (Linux's F_OFD_SETLK: held by
# the descriptor take_lock returns, released when it closes or its process dies, as flock's), so
# that lock_holder can ask who holds it (F_OFD_GETLK) without ever holding it for an instant.
_FLOCK = "hhqqi4x"  # struct flock: l_type, l_whence, l_start, l_len, l_pid


def _flock(kind: int) -> bytes:
    return struct.pack(_FLOCK, kind, os.SEEK_SET, 0, 0, 0)


def _pid_in(fd: int) -> str:
    return os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"


def new_run_id(name: str) -> str:
    """A run id no other run shares: the league's name, the UTC time and a random suffix."""
    return f"{name}-{datetime.now(timezone.utc):%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def saved_run_id(folder: str | Path) -> str | None:
    """The ``run_id`` kept in the folder's ``run.json`` (None: an older folder without one)."""
    path = Path(folder) / RUN_FILE
    try:
        return str(json.loads(path.read_text(encoding="utf-8"))["run_id"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a run file ({exc}); it should hold {{\"run_id\": ...}}") from None


def replace_text(path: Path, text: str) -> None:
    """Write ``text`` at ``path`` under a temporary name, then rename it there: a reader (or a
    kill) finds the old file or the new one, never half of one. The run folder's small files
    (run.json, config.yaml, sprt.yaml, study.json, tune.json, standings...) are written so."""
    replace_bytes(path, text.encode("utf-8"))


def replace_bytes(path: Path, data: bytes) -> None:
    """``replace_text`` of bytes (a model, a shard of positions). The temporary name is the
    writer's own (``.<name>.<pid>-<random>.tmp``, beside it): two processes writing one file (two
    readers refreshing one view of a run on object storage) never take or remove each other's."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def save_run_id(run: RunStore, run_id: str, referee: str | None = None, kind: str | None = None,
                models: dict | None = None) -> None:
    """``run.json``: the run's id, (``referee``) who played its games: ``compiled``, ``python``
    or ``mixed`` (tournament/runner.py), (``kind``) what the run is: a kind's name (kinds/), and
    (``models``) each bot's models with their sha256, as the run started with them."""
    if kind is not None and not _KIND_NAME.match(kind):
        raise ValueError(f"a run kind is a short lowercase name, not {kind!r}")
    record = {"run_id": run_id, **({"referee": referee} if referee else {}), **({"kind": kind} if kind else {}),
              **({"models": models} if models else {})}
    RunStore(run).write_text(RUN_FILE, json.dumps(record) + "\n")


def saved_models(folder: str | Path) -> dict[str, list[dict[str, str]]]:
    """The models ``run.json`` pinned, each bot's list of ``{"model", "sha256"}`` ({} for a run
    that reads none, or from before runs pinned them)."""
    try:
        models = json.loads((Path(folder) / RUN_FILE).read_text(encoding="utf-8")).get("models")
    except (OSError, ValueError, AttributeError):
        return {}
    return models if isinstance(models, dict) else {}


def run_kind(folder: str | Path) -> str:
    """What the folder holds: run.json's ``kind``; else (a folder from before kinds were kept) a
    ``study`` or ``sprt`` when it has that run's file, a ``study`` when its first readable ``games``
    part names interventions (a study stopped before it wrote study.json), a ``league`` otherwise."""
    try:
        kind = json.loads((Path(folder) / RUN_FILE).read_text(encoding="utf-8")).get("kind")
    except (OSError, ValueError, AttributeError):
        kind = None
    if isinstance(kind, str) and _KIND_NAME.match(kind):
        return kind
    kind = next((k for k, name in LEGACY_KIND_FILES if (Path(folder) / name).exists()), None)
    if kind is not None:
        return kind
    for n in committed_parts(Path(folder)):  # a stopped study wrote its study.json at the end
        try:
            games = pq.read_table(part_path(Path(folder), "games", n))
        except (OSError, ValueError):  # damaged: the next part says
            continue
        column = games.column("intervention") if "intervention" in games.column_names else None
        return "study" if column is not None and column.null_count < len(column) else "league"
    return "league"


def run_id_of(folder: str | Path) -> str | None:
    """The folder's run id: its ``run.json``, else (a folder from before run ids were unique) the
    one its records hold; None for a folder with neither."""
    saved = saved_run_id(folder)
    if saved is not None:
        return saved
    for n in committed_parts(Path(folder)):
        ids = pq.read_table(part_path(Path(folder), "games", n), columns=["run_id"]).column("run_id")
        if len(ids):
            return ids[0].as_py()
    return None


def folder_run_ids(folder: str | Path) -> set[str]:
    """The run ids a folder's ``games`` records hold (one for a league's folder)."""
    ids: set[str] = set()
    for path in parquet_files(Path(folder), "games"):
        ids.update(pq.read_table(path, columns=["run_id"]).column("run_id").unique().to_pylist())
    return ids


def quarantine(folder: Path, path: Path, name: str) -> Path:
    """Move ``path`` (a file of table ``name``) to ``<run>/quarantine/<name>/``; return where it went."""
    box = Path(folder) / QUARANTINE / name
    box.mkdir(parents=True, exist_ok=True)
    target = box / path.name
    n = 1
    while target.exists():  # an earlier repair quarantined a file of that name: keep both
        target = box / f"{path.name}.{n}"
        n += 1
    path.rename(target)
    return target
