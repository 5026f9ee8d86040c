"""The ``azul`` command: builds the typer app and registers every command (see docs/cli.md).

Each command group lives in its own module and imports nothing from here; what they share
(the error line, ``--plain``, ``--seed``, ``--variant``...) is in ``azul_cli/common.py``.
"""
from __future__ import annotations

from importlib import metadata
from typing import Annotated

import typer

from engine import __version__ as ENGINE_VERSION

from . import (atlas, league, play, positions, ratings, ratings_list, replay, report, serve, series, sprt,
               review, strategy, study, train, tune)

app = typer.Typer(
    name="azul",
    help="Azul bots in leagues: play and replay games, run leagues on Ray, rate the bots, report what wins.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)


def _version(value: bool) -> None:
    if value:
        try:
            version = metadata.version("azul-league")
        except metadata.PackageNotFoundError:
            version = ENGINE_VERSION
        typer.echo(f"azul {version}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """Azul: show positions, list legal moves, play self-play games."""


# ---------------------------------------------------------------- the commands, in help order
for command in (positions.show, positions.moves, positions.selfplay, positions.analyze, play.play,
                series.series, replay.replay, ratings.elo, report.report, strategy.openings,
                strategy.marker, ratings.standings, sprt.sprt, train.train, tune.tune, atlas.atlas, serve.serve):
    app.command()(command)
app.add_typer(league.app, name="league")
app.add_typer(study.app, name="study")
app.add_typer(ratings_list.app, name="ratings")
app.add_typer(review.app, name="review")
