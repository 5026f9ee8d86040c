"""``azul serve``'s application on a real uvicorn for the tests: ``serving`` starts it on a free
port of 127.0.0.1 in a thread and gives its base URL; ``get`` and ``raw_get`` ask it over real HTTP
(``raw_get`` sends the path exactly as written, ``..`` and all); ``until`` waits for a condition;
``post`` sends a form, and ``play_to_the_end`` plays a table of ``/play`` to its end over HTTP."""
from __future__ import annotations

import html
import http.client
import json
import re
import threading
import time
import urllib.error
import urllib.parse
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


@contextmanager
def play_site(tmp: Path):
    """A server of an empty runs/ under ``tmp`` whose table saves into ``tmp/played``: its base URL
    and that folder."""
    (tmp / "runs").mkdir()
    with serving([tmp / "runs"], tmp / "played") as base:
        yield base, tmp / "played"


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


def post(url: str, **fields) -> tuple[int, str, str]:
    """POST a form to ``url``: the status, the body and the URL it ended at (redirects followed)."""
    try:
        with urllib.request.urlopen(url, urllib.parse.urlencode(fields).encode(), timeout=60) as r:
            return r.status, r.read().decode(), r.url
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), url


def position(page: str):
    """The position a table's page shows (its ``data-position``), as a GameState."""
    from engine import GameState

    return GameState.from_json(json.loads(html.unescape(re.search(r'data-position="([^"]*)"', page).group(1))))


def play_to_the_end(base: str, **form) -> tuple[str, str]:
    """A new table (the form's fields) played to its end over HTTP, the person always making the first
    legal move: the last page and the table's URL."""
    status, page, table = post(base + "/play/", **form)
    assert status == 200 and table.startswith(base + "/play/t/"), page
    for _ in range(400):
        state = position(page)
        if state.is_over:
            return page, table
        status, page, _ = post(table + "/move", move=str(state.legal_moves()[0]))
        assert status == 200 and "not played" not in page, page
    raise AssertionError("the game did not end")
