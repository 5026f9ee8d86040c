"""``azul serve``'s application on a real uvicorn for the tests: ``serving`` starts it on a free
port of 127.0.0.1 in a thread and gives its base URL; ``get`` and ``raw_get`` ask it over real HTTP
(``raw_get`` sends the path exactly as written, ``..`` and all); ``until`` waits for a condition."""
from __future__ import annotations

import http.client
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from azul_cli.serve import free_port


@contextmanager
def serving(runs: list[Path], play_out: Path):
    import uvicorn

    from web.app import create_app

    port = free_port("127.0.0.1")
    server = uvicorn.Server(uvicorn.Config(create_app(runs, play_out), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    until(lambda: server.started, 20, "the server started")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def get(url: str, method: str = "GET") -> tuple[int, str]:
    """The status and body of ``url``."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def raw_get(base: str, path: str) -> tuple[int, str]:
    """``get`` of ``path`` sent as written (no client normalizes its ``..``)."""
    host, port = base.removeprefix("http://").split(":")
    con = http.client.HTTPConnection(host, int(port), timeout=60)
    try:
        con.putrequest("GET", path, skip_accept_encoding=True)
        con.endheaders()
        r = con.getresponse()
        return r.status, r.read().decode()
    finally:
        con.close()


def until(condition, seconds: float, what: str, every: float = 0.1):
    """Wait until ``condition()`` is true (returning it), at most ``seconds``, else fail saying ``what``."""
    end = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"waited {seconds} s for: {what}")
        time.sleep(every)
