"""``azul elo``: Elo ratings with 95% intervals from the records of one or more league runs.

Registered on the ``azul`` app in azul_cli/main.py. Only parses the options, calls
``analysis.read_records`` and ``analysis.fit_elo``, and prints (docs/analysis.md). The analysis
modules (DuckDB, Polars, SciPy) load when the command runs, so other commands start fast.
"""
from __future__ import annotations

import json
import math
from enum import Enum
from pathlib import Path
from typing import Annotated, NoReturn

import typer


class Format(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"


RunDirsArg = Annotated[list[Path], typer.Argument(
    help="One or more run folders (<out>/<name>, e.g. runs/quick), read as one league.",
    metavar="RUN_DIR", show_default=False)]
FormatOpt = Annotated[Format, typer.Option(
    "--format", "-f", help="table (for people), csv or json (for programs).")]
AnchorOpt = Annotated[str | None, typer.Option(
    "--anchor", metavar="BOT", help="Put this bot at --anchor-value (default: the mean bot at 0).")]
AnchorValueOpt = Annotated[float, typer.Option(
    "--anchor-value", help="The anchor bot's rating.")]
BootstrapOpt = Annotated[int, typer.Option(
    "--bootstrap", "-b", metavar="N", min=0, help="Bootstrap resamples of whole deals (0: no intervals).")]
SeedOpt = Annotated[int, typer.Option("--seed", help="The bootstrap's seed.")]


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)


def _num(x: float | None, digits: int = 1) -> float | None:
    return None if x is None or math.isnan(x) else round(x, digits)


def elo(run_dirs: RunDirsArg, format: FormatOpt = Format.table, anchor: AnchorOpt = None,
        anchor_value: AnchorValueOpt = 0.0, bootstrap: BootstrapOpt = 200, seed: SeedOpt = 0) -> None:
    """Elo ratings of the bots of 2-player leagues, with 95% intervals (a bootstrap over deals)."""
    from .elo import fit_elo
    from .records import read_records

    try:
        records = read_records(run_dirs)
        fit = fit_elo(records["results"], records["games"], anchor=anchor,
                      anchor_value=anchor_value, bootstrap=bootstrap, seed=seed)
    except (ValueError, OSError) as exc:
        _fail(str(exc))
    if format is Format.csv:
        typer.echo(fit.table.write_csv(), nl=False)
    elif format is Format.json:
        edge, low, high = fit.first_move
        doc = {"bots": [{k: _num(v, 4 if k == "score_share" else 1) if isinstance(v, float) else v
                         for k, v in row.items()}
                        for row in fit.table.iter_rows(named=True)],
               "first_move": {"rating": _num(edge), "low": _num(low), "high": _num(high)},
               "superiority": {row["bot"]: {k: v for k, v in row.items() if k != "bot"}
                               for row in fit.superiority.iter_rows(named=True)},
               "unbounded": fit.unbounded, "bootstrap": bootstrap, "seed": seed, "anchor": anchor}
        typer.echo(json.dumps(doc, indent=2))
    else:
        _print_table(fit, anchor, anchor_value)


def _print_table(fit, anchor: str | None, anchor_value: float) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    where = f"{anchor} at {anchor_value:g}" if anchor else "mean bot at 0"
    table = Table(box=box.SIMPLE_HEAD, title=f"elo: {where}; 95% intervals, "
                  f"{fit.bootstrap} deal resamples")
    for name, justify in (("#", "right"), ("bot", "left"), ("games", "right"),
                          ("elo", "right"), ("95% interval", "right"), ("share", "right")):
        table.add_column(name, justify=justify)
    for i, row in enumerate(fit.table.iter_rows(named=True), 1):
        interval = ("-" if math.isnan(row["low"])
                    else f"{row['low']:.0f} .. {row['high']:.0f}")
        table.add_row(str(i), row["bot"], f"{row['games']:,}", f"{row['rating']:.0f}", interval,
                      f"{row['score_share']:.1%}")
    console = Console()
    console.print(table)
    edge, low, high = fit.first_move
    extra = "" if math.isnan(low) else f" (95%: {low:.0f} .. {high:.0f})"
    console.print(f"first mover's edge: {edge:+.0f}{extra}", soft_wrap=True)
    for bot in fit.unbounded:
        console.print(f"note: {bot} won every game or none: its rating and interval are only a "
                      "bound (set by the fit's ridge)", soft_wrap=True)
