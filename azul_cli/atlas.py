"""``azul atlas CLAIMS.yaml``: test each claim of a file on the strongest bots and write the atlas
(SPEC 11; docs/studies.md, "The strategy atlas"). ``kinds.atlas.run_atlas`` plays; this module
draws the progress line and the verdicts.
"""
from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from .common import FreshOpt, OutOpt, QuietOpt, RunNameOpt, WorkersOpt, fail, os_error_message, print_json, print_table
from .progress import StatusLine


class AtlasFormat(str, Enum):
    table = "table"
    json = "json"


def atlas(file: Annotated[Path, typer.Argument(help="The claims file (YAML; atlas/claims.yaml, docs/studies.md).",
                                               metavar="CLAIMS.yaml", show_default=False)],
          out: OutOpt = None, name: RunNameOpt = None, workers: WorkersOpt = None,
          resume: Annotated[bool, typer.Option("--resume", help="Go on with a stopped atlas.")] = False,
          fresh: FreshOpt = False,
          compare_with: Annotated[Optional[str], typer.Option(
              "--compare-with", metavar="ATLAS_RUN", help="An earlier atlas over the same claims: say which "
              "verdicts changed.")] = None,
          publish: Annotated[Optional[Path], typer.Option(
              "--publish", metavar="DOCS", help="Once the atlas is complete, write DOCS/atlas.md from its atlas.json "
              "and copy atlas.json and atlas.html into DOCS/atlas/ (the shipped atlas: --publish docs).")] = None,
          quiet: QuietOpt = False,
          format: Annotated[AtlasFormat, typer.Option("--format", "-f", help="table (for people) or json.")]
          = AtlasFormat.table) -> None:
    """Test players' claims about Azul on the strongest bots; write atlas.json and atlas.html."""
    from kinds.atlas import run_atlas, store_of
    from kinds.atlas_config import load_atlas
    from records.names import ATLAS_HTML
    from tournament.errors import AzulError

    if resume and fresh:
        fail("--resume and --fresh: choose one")
    if publish is not None and not publish.is_dir():
        fail(f"--publish {publish}: no such folder (the docs folder the atlas's page goes to)")
    try:
        config = load_atlas(file, out=None if out is None else str(out), name=name, workers=workers)
    except AzulError as exc:
        fail(str(exc))
    console = Console(highlight=False, markup=False, stderr=format is AtlasFormat.json)
    line = StatusLine(console, _progress_text, enabled=not quiet)
    try:
        with line:
            outcome = run_atlas(config, resume=resume, fresh=fresh, compare_with=compare_with,
                                progress=lambda run, p: line.update((run, p)))
    except (AzulError, ValueError) as exc:
        fail(str(exc))
    except OSError as exc:  # a folder that cannot be written, an object store that refuses...
        fail(f"{os_error_message(exc)}; what was written so far is intact: fix that and finish the atlas "
             "with --resume")
    atlas = outcome.atlas
    if format is AtlasFormat.json:
        print_json(atlas["rows"])
    else:
        _table(console, atlas)
        store = store_of(config)
        console.print(f"atlas: {store.where(ATLAS_HTML)} (and atlas.json)", soft_wrap=True)
    if outcome.interrupted:
        typer.echo(f"stopped: {len(atlas['claims'])} of {len(config.claims)} claims tested; go on with: "
                   f"{atlas['command']}", err=True)
        raise typer.Exit(130)
    if publish is not None:
        from present.atlas_markdown import FOLDER, publish as write_pages

        try:
            page = write_pages(store_of(config), publish)
        except (ValueError, OSError) as exc:
            fail(f"--publish {publish}: {os_error_message(exc) if isinstance(exc, OSError) else exc}")
        console.print(f"published: {page} and {page.parent / FOLDER}/", soft_wrap=True)


def _progress_text(report) -> str:
    run, p = report
    return f"{run}: {p.recorded:,} games recorded ({p.played:,} played in {p.seconds:.0f} s)"


def _table(console: Console, atlas: dict) -> None:
    from rich import box
    from rich.table import Table

    from present.atlas_page import signed

    table = Table(box=box.SIMPLE_HEAD, title=f"atlas {atlas['name']}: each claim's verdict by its 95% interval")
    for column in ("claim", "players", "metric", "expect", "effect", "95%", "games", "verdict"):
        table.add_column(column, justify="left" if column in ("claim", "metric", "expect", "verdict") else "right")
    expects = {c["id"]: c["expect"] for c in atlas["claims"]}
    for r in atlas["rows"]:
        table.add_row(r["id"], r["players"], r["metric"], expects[r["id"]], signed(r["effect"], 3),
                      f"{signed(r['low'], 3)} .. {signed(r['high'], 3)}", f"{r['games']:,}", r["verdict"])
    print_table(table, console)
    for change in atlas.get("changed") or []:
        console.print(f"changed since {atlas['compared_with']}: {change['id']} at {change['players']} players: "
                      f"{change['before']} -> {change['now']}", soft_wrap=True)
