"""The writer's lock of a run on object storage: the object ``.lock`` (docs/league.md, "Records on
object storage").

A driver creates it with ``If-None-Match: *`` holding its owner token, pid, host and heartbeat
time; a thread rewrites it every ``HEARTBEAT_S`` with ``If-Match`` on the ETag it last wrote
(compare-and-swap) and the driver removes it at the end (``If-Match`` again: only its own). Another
driver is refused (``RunInUse``) unless the lock is stale (its heartbeat older than
``LOCK_TIMEOUT_S``: its driver is gone or cut off) or was taken on this host by a process that is
gone (a kill -9 then ``--resume``: taken at once); either is taken over with ``If-Match`` on the ETag
read, so of two drivers taking over one lock, one wins. A driver whose heartbeat finds the lock
taken over has lost it: it commits no more parts (``check``).
"""
from __future__ import annotations

import json
import os
import secrets
import socket
import threading
import time

from .folder import RunInUse
from .names import LOCK_FILE
from .objects import Objects

LOCK_TIMEOUT_S = 60.0  # a lock whose heartbeat is older than this is stale: another driver takes it
HEARTBEAT_S = LOCK_TIMEOUT_S / 4  # how often the holder rewrites its heartbeat


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read(objects: Objects) -> tuple[dict, str] | None:
    """The lock's fields and ETag, or None when there is none (an unreadable lock reads as stale)."""
    try:
        data, etag = objects.get(LOCK_FILE)
    except FileNotFoundError:
        return None
    try:
        fields = json.loads(data)
        if not isinstance(fields, dict):
            raise ValueError
    except ValueError:
        fields = {}
    return fields, etag


def _free(fields: dict, now: float) -> bool:
    """Whether a lock with these fields may be taken: stale, or its process on this host is gone."""
    try:
        beat, pid, host = float(fields["heartbeat"]), int(fields["pid"]), str(fields["host"])
    except (KeyError, TypeError, ValueError):
        return True
    return now - beat > LOCK_TIMEOUT_S or (host == socket.gethostname() and not _alive(pid))


def _shown(fields: dict) -> str:
    return f"{fields.get('pid', '?')} on {fields.get('host', '?')}"


def lock_holder(objects: Objects) -> str | None:
    """``PID on HOST`` of the driver holding the lock now, or None (no lock, or one free to take)."""
    found = _read(objects)
    if found is None or _free(found[0], time.time()):
        return None
    return _shown(found[0])


class S3Lock:
    """This driver's hold of one run's lock (``take``, ``check``, ``release``)."""

    def __init__(self, objects: Objects, where: str):
        self.objects, self.where = objects, where
        self.token = secrets.token_hex(8)
        self.etag: str | None = None
        self.lost = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._mutex = threading.Lock()

    def _body(self) -> bytes:
        return json.dumps({"owner": self.token, "pid": os.getpid(), "host": socket.gethostname(),
                           "heartbeat": time.time()}).encode()

    def take(self) -> None:
        """Create the lock, or take over a free one; ``RunInUse`` when another driver holds it."""
        for _ in range(3):  # a lock removed between our create and our read: create again
            self.etag = self.objects.put_new(LOCK_FILE, self._body())
            if self.etag is not None:
                break
            found = _read(self.objects)
            if found is None:
                continue
            fields, etag = found
            if not _free(fields, time.time()):
                raise RunInUse(self.where, _shown(fields))
            self.etag = self.objects.put_if(LOCK_FILE, self._body(), etag)
            if self.etag is None:  # another driver took it over first
                again = _read(self.objects)
                raise RunInUse(self.where, _shown(again[0]) if again else "?")
            break
        if self.etag is None:
            raise RunInUse(self.where, "?")
        self._thread = threading.Thread(target=self._beat, name="azul-s3-lock", daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT_S):
            self.refresh()

    def refresh(self) -> bool:
        """Rewrite the heartbeat (compare-and-swap on our ETag): False once the lock is lost."""
        with self._mutex:
            if self.lost or self.etag is None:
                return False
            try:
                etag = self.objects.put_if(LOCK_FILE, self._body(), self.etag)
            except OSError:  # the store unreachable for a while: try at the next beat
                return True
            if etag is None:
                self.lost = True
                return False
            self.etag = etag
            return True

    def check(self) -> None:
        """``RunInUse`` if another driver has taken the lock over (this one may write no more)."""
        if self.lost:
            found = _read(self.objects)
            raise RunInUse(self.where, _shown(found[0]) if found else "?")

    def release(self) -> None:
        """Stop the heartbeat and remove the lock if it is still ours."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._mutex:
            if self.etag is not None and not self.lost:
                self.objects.delete(LOCK_FILE, etag=self.etag)
            self.etag = None
