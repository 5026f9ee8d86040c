"""``azul serve``: the live web view of the runs under some folders (SPEC 10; web/, docs/serve.md)."""
from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import fail

LOOPBACK = ("127.0.0.1", "localhost", "::1")
ServeRuns = Annotated[Optional[list[Path]], typer.Argument(
    help="Folders of runs to serve (a run folder itself, or one holding runs); runs when none is given.",
    metavar="RUNS", show_default=False)]
HostOpt = Annotated[str, typer.Option(
    help="Address to listen on; anything but the loopback makes the view reachable from the network.")]
PortOpt = Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on; 0 takes a free one.")]
PlayOutOpt = Annotated[Path, typer.Option(
    help="Folder the games people play in the browser are recorded under.")]


def free_port(host: str, port: int = 0) -> int:
    """``port`` if it is free on ``host`` now, or (``port`` 0) a free one: what the server listens
    on, and the URL printed names. An OSError when it cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds it
        s.bind((host, port))
        return s.getsockname()[1]


def serve(runs: ServeRuns = None, host: HostOpt = "127.0.0.1", port: PortOpt = 8000,
          play_out: PlayOutOpt = Path("runs/played")) -> None:
    """Serve a live, read-only web view of the runs under RUNS: an index, a page per run (standings,
    ratings, an SPRT's LLR path, a tune's parameters, a training run's lineage, rating lists), replays
    and the analysis of recorded positions; and a table to play the bots (under /play).

    Pages update while the runs play. Stop it with Ctrl-C.
    """
    folders = runs or [Path("runs")]
    from records.urls import is_url

    for folder in folders:
        if is_url(str(folder)):
            fail("RUNS on object storage (s3://...) are not served yet: azul serve reads local folders "
                 "(serve a local copy of the runs)")
        if not folder.is_dir():
            fail(f"{folder}: no such folder (RUNS are folders of runs, or run folders)")
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
