"""``azul ratings add`` and ``azul ratings show``: a rating list kept in a folder, grown run by
run (analysis/rating_list.py holds the list; this module reads the options and prints;
docs/ratings.md)."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import Format, FormatOpt, fail, json_rows, print_json, print_table
from .ratings import AnchorOpt, BootstrapOpt, SeedOpt

app = typer.Typer(
    name="ratings",
    help="A rating list kept in a folder: add runs to it, show it with the change since its last version.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)

ListArg = Annotated[Path, typer.Argument(help="The list's folder (made by the first add).", metavar="LIST",
                                         show_default=False)]
RunsArg = Annotated[Optional[list[Path]], typer.Argument(help="Run folders to add.", metavar="RUN...",
                                                         show_default=False)]
ExcludeOpt = Annotated[Optional[list[str]], typer.Option(
    "--exclude", metavar="BOT", help="Leave this bot's games out of the list (repeat for more).")]
IncludeOpt = Annotated[Optional[list[str]], typer.Option(
    "--include", metavar="BOT", help="Take a bot off the list's excluded ones.")]
RenameOpt = Annotated[Optional[list[str]], typer.Option(
    "--rename", metavar="OLD=NEW", help="Rate bot OLD (its name in the records) as NEW, e.g. a bot renamed "
    "between versions (repeat for more).")]
ListAnchorValueOpt = Annotated[Optional[float], typer.Option(
    "--anchor-value", help="The anchor bot's rating (default: the list's, else 0).")]
VersionOpt = Annotated[Optional[int], typer.Option("--version", metavar="N", help="Show version N (default: the last).")]
HtmlOpt = Annotated[Optional[Path], typer.Option("--html", metavar="FILE", help="Also write the list as an HTML page.")]


def _renames(pairs: list[str] | None) -> dict[str, str]:
    out = {}
    for pair in pairs or []:
        old, sep, new = pair.partition("=")
        if not sep or not old or not new:
            fail(f"--rename {pair}: give OLD=NEW")
        out[old] = new
    return out


@app.command()
def add(rating_list: ListArg, runs: RunsArg = None, anchor: AnchorOpt = None,
        anchor_value: ListAnchorValueOpt = None, exclude: ExcludeOpt = None, include: IncludeOpt = None,
        rename: RenameOpt = None) -> None:
    """Add runs to the list (a new version of it); a run already in it is refused, by its run id.

    --anchor, --exclude and --rename are the list's from this version on."""
    from analysis.rating_list import RatingList, RatingListError

    try:
        lst = RatingList.open(rating_list, create=True)
        version = lst.add(list(runs or []), anchor=anchor, anchor_value=anchor_value, exclude=exclude or [],
                          include=include or [], rename=_renames(rename))
    except (RatingListError, ValueError, OSError) as exc:
        fail(str(exc))
    typer.echo(f"{rating_list}: version {version.number}, {len(version.runs)} runs "
               f"({len(runs or [])} added)")


@app.command()
def show(rating_list: ListArg, format: FormatOpt = Format.table, anchor: AnchorOpt = None,
         anchor_value: ListAnchorValueOpt = None, version: VersionOpt = None, bootstrap: BootstrapOpt = 200,
         seed: SeedOpt = 0, html: HtmlOpt = None) -> None:
    """The list's ratings, rebuilt from its runs' records, with 95% intervals, games and the change
    since the previous version (anchor: the list's, else the mean bot at 0)."""
    from analysis.rating_list import RatingList, RatingListError, list_html

    try:
        shown = RatingList.open(rating_list).show(version, anchor=anchor, anchor_value=anchor_value,
                                                  bootstrap=bootstrap, seed=seed)
    except (RatingListError, ValueError, OSError) as exc:
        fail(str(exc))
    if html is not None:
        html.write_text(list_html(shown, rating_list.name or str(rating_list)), encoding="utf-8")
    if format is Format.json:
        doc = shown.as_dict()
        doc["players"] = [{"num_players": n, "bots": json_rows(t)} for n, t in shown.tables.items()]
        print_json(doc)
    elif format is Format.csv:
        import polars as pl

        frame = pl.concat([t.select(pl.lit(n, dtype=pl.Int64).alias("num_players"), pl.all())
                           for n, t in shown.tables.items()])
        typer.echo(frame.write_csv(), nl=False)
    else:
        _print(shown)


def _print(shown) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    v, console = shown.version, Console(highlight=False, markup=False)
    where = f"{shown.anchor} at {shown.anchor_value:g}" if shown.anchor else "mean bot at 0"
    since = f"version {shown.previous.number}" if shown.previous else "nothing (the first version)"
    console.print(f"version {v.number}: {len(v.runs)} runs; elo: {where}; change since {since}", soft_wrap=True)
    for n, frame in shown.tables.items():
        table = Table(box=box.SIMPLE_HEAD, title=f"{n} players")
        for name in ("#", "bot", "elo", "95% interval", "games", "change"):
            table.add_column(name, justify="left" if name == "bot" else "right")
        for i, r in enumerate(frame.iter_rows(named=True), 1):
            low, high = r["low"], r["high"]
            span = "-" if low is None or math.isnan(low) else f"{low:.0f} .. {high:.0f}"
            change = "new" if r["previous"] is None else f"{r['change']:+.0f}"
            table.add_row(str(i), r["bot"], f"{r['rating']:.0f}", span, f"{r['games']:,}", change)
        print_table(table, console)
