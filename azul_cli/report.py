"""``azul report``: write a league's ``report.html``, ``elo.csv`` and ``summary.md``.

Parses the options, calls ``analysis.report`` and prints the paths written and the leader line
(docs/analysis.md).
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import RunDirs, fail, read_runs
from .ratings import BootstrapOpt, SeedOpt

OutOpt = Annotated[Path | None, typer.Option(
    "--out", metavar="DIR", help="Folder (or s3:// run) for the three files (default: the first RUN_DIR).")]


def report(run_dirs: RunDirs, out: OutOpt = None, bootstrap: BootstrapOpt = 200,
           seed: SeedOpt = 0) -> None:
    """Write report.html (self-contained, plots embedded), elo.csv and summary.md."""
    runs = read_runs(run_dirs)
    import duckdb
    from rich.console import Console

    from analysis.report import collect, headline, write_report
    from records.store import open_store

    try:  # a spinner on a terminal: a million-game league takes about half a minute
        with Console(stderr=True, markup=False).status("reading the records, fitting the ratings, drawing the plots"):
            result = collect(runs, bootstrap=bootstrap, seed=seed)
            where = open_store(out if out is not None else run_dirs[0])  # a folder, or s3://
            paths = write_report(result, where)
    except (ValueError, OSError, duckdb.Error) as exc:
        fail(str(exc))
    for name in paths:
        typer.echo(f"wrote {where.where(name)}")
    typer.echo(headline(result))
