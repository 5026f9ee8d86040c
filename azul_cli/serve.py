"""``azul serve``: the live web view of the runs under some folders (SPEC 10; web/, docs/serve.md)."""
from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import fail

LOOPBACK = ("127.0.0.1", "localhost", "::1")
ServeRuns = Annotated[Optional[list[Path]], typer.Argument(
    help="Folders of runs to serve (a run folder itself, or one holding runs), or s3://BUCKET/PREFIX "
         "(runs on object storage); runs when none is given.",
    metavar="RUNS", show_default=False)]
HostOpt = Annotated[str, typer.Option(
    help="Address to listen on; anything but the loopback makes the view reachable from the network.")]
PortOpt = Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on; 0 takes a free one.")]
PlayOutOpt = Annotated[Path, typer.Option(
    help="Folder (or s3://BUCKET/PREFIX) the games people play in the browser are recorded under.")]


def free_port(host: str, port: int = 0) -> int:
    """``port`` if it is free on ``host`` now, or (``port`` 0) a free one: what the server listens
    on, and the URL printed names. An OSError when it cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds it
        s.bind((host, port))
        return s.getsockname()[1]


def check_url(text: str, what: str = "") -> str:
    """An ``s3://`` URL as the store names it (typer's ``s3:/B/P`` made ``s3://B/P``), or one
    ``error:`` line saying what is wrong with it."""
    from records.store import open_store

    try:
        return str(open_store(text))
    except ValueError as exc:
        fail(f"{what}{exc}")


def _root(where, what: str = ""):
    """``where`` as a place holding runs (records.store.open_root), or one ``error:`` line (a bad URL)."""
    from records.store import open_root

    try:
        return open_root(where)
    except ValueError as exc:
        fail(f"{what}{exc}")


def check_prefix(text: str) -> str:
    """A served ``s3://BUCKET/PREFIX``, checked with one LIST: an ``error:`` line when it cannot
    be listed (no bucket, refused, unreachable: the message names the URL, never the endpoint) or
    holds nothing."""
    from records.store import open_store

    url = check_url(text)
    store = open_store(url)
    try:
        there = store.is_there()
    except OSError as exc:
        fail(str(exc))
    if not there:
        fail(f"{url}: nothing there (RUNS on object storage are prefixes holding runs, or runs)")
    return url


def serve(runs: ServeRuns = None, host: HostOpt = "127.0.0.1", port: PortOpt = 8000,
          play_out: PlayOutOpt = Path("runs/played")) -> None:
    """Serve a live, read-only web view of the runs under RUNS: an index, a page per run (standings,
    ratings, an SPRT's LLR path, a tune's parameters, a training run's lineage, rating lists), replays
    and the analysis of recorded positions; and a table to play the bots (under /play).

    Pages update while the runs play. Stop it with Ctrl-C.
    """
    folders = runs or [Path("runs")]
    for i, folder in enumerate(folders):
        if _root(folder).folder() is None:  # a prefix on object storage
            folders[i] = check_prefix(str(folder))
        elif not folder.is_dir():
            fail(f"{folder}: no such folder (RUNS are folders of runs, or run folders)")
    if _root(play_out, "--play-out ").folder() is None:
        play_out = check_url(str(play_out), "--play-out ")
    try:
        port = free_port(host, port)
    except OSError as exc:
        fail(f"--host {host} --port {port}: cannot listen there ({exc.strerror or exc})")
    import uvicorn

    from web.app import create_app

    if host not in LOOPBACK:
        typer.echo(f"warning: --host {host}: the view is reachable from the network, not only from this machine",
                   err=True)
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"serving {', '.join(map(str, folders))} on http://{shown}:{port}/ (Ctrl-C stops)")
    uvicorn.run(create_app(folders, play_out), host=host, port=port, log_level="warning")
