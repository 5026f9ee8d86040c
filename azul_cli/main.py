"""The ``azul`` command: a thin typer layer over the engine (see docs/cli.md).

Each command parses its arguments, calls the library, and turns a library error into one
``error: ...`` line on stderr and exit status 1. Later command groups (league, elo, report, play)
join as sub-apps: ``app.add_typer(league_app, name="league")``.
"""
from __future__ import annotations

import json
import random
import sys
from enum import Enum
from importlib import metadata
from pathlib import Path
from typing import Annotated, NoReturn, Optional

import typer
from rich.console import Console

from engine import GameState, InvalidPositionError, new_game
from engine import __version__ as ENGINE_VERSION

from . import render

app = typer.Typer(
    name="azul",
    help="Azul bots in leagues: play and replay games, run leagues on Ray, rate the bots, report what wins.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)


class Variant(str, Enum):
    colored = "colored"
    gray = "gray"


# ---------------------------------------------------------------- options, written once
Position = Annotated[Path, typer.Argument(
    help="A position file in the azul-position/1 JSON format ('-' reads standard input).",
    metavar="POSITION.json", show_default=False)]
Plain = Annotated[bool, typer.Option(
    "--plain", help="No colour or other styling (also automatic when output is not a terminal).")]
Players = Annotated[int, typer.Option(min=2, max=4, help="Number of players, 2 to 4.")]
Seed = Annotated[Optional[int], typer.Option(
    help="Seed for the deals and the moves; the same seed plays the same game. "
         "Without it, a seed is drawn and printed.", show_default="random")]
VariantOpt = Annotated[Variant, typer.Option(
    case_sensitive=False, help="Wall variant: the printed coloured wall or the gray (free) wall.")]
Quiet = Annotated[bool, typer.Option(
    "--quiet", "-q", help="Print only the final scores and ranks, not every move.")]
JsonOut = Annotated[Optional[Path], typer.Option(
    metavar="FILE", help="Also write the final position (azul-position/1 JSON) to FILE.")]
OneLine = Annotated[bool, typer.Option("--line", help="All moves on one line, separated by spaces.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print the moves as a JSON list of strings.")]


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


# ---------------------------------------------------------------- helpers
def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)


def _console(plain: bool) -> Console:
    return Console(color_system=None if plain else "auto", highlight=False)


def _load(path: Path) -> GameState:
    """Read a position file, or fail with one line that says what is wrong with it."""
    name = "<stdin>" if str(path) == "-" else str(path)
    try:
        text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except FileNotFoundError:
        _fail(f"{name}: no such file")
    except UnicodeDecodeError:
        _fail(f"{name}: not JSON (the file is not UTF-8 text)")
    except OSError as exc:
        _fail(f"{name}: cannot read it ({exc.strerror or exc})")
    try:
        return GameState.from_json(text)
    except InvalidPositionError as exc:
        _fail(f"{name}: {exc}")


# ---------------------------------------------------------------- commands
@app.command()
def show(position: Position, plain: Plain = False) -> None:
    """Draw a position: factories, centre, bag and lid, and every player's board."""
    state = _load(position)
    _console(plain).print(render.position_view(state.to_json()))


@app.command()
def moves(position: Position, line: OneLine = False, as_json: AsJson = False) -> None:
    """List the legal moves of a position in notation, one per line, in the engine's order."""
    if line and as_json:
        _fail("--line and --json: choose one")
    state = _load(position)
    legal = [str(m) for m in state.legal_moves()]
    if as_json:
        typer.echo(json.dumps(legal))
    elif not legal:
        why = "the game is over" if state.phase == "over" else "a deal is due (phase refill)"
        typer.echo(f"no legal moves: {why}", err=True)
    else:
        typer.echo(" ".join(legal) if line else "\n".join(legal))


@app.command()
def selfplay(
    players: Players = 2,
    seed: Seed = None,
    variant: VariantOpt = Variant.colored,
    quiet: Quiet = False,
    json_out: JsonOut = None,
    plain: Plain = False,
) -> None:
    """Play one game of uniformly random moves and print it move by move.

    random.Random(SEED) draws every deal's seed and picks every move (see docs/cli.md).
    """
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    out = _console(plain)
    out.print(f"selfplay: {players} players, {variant.value} wall, seed {seed}", soft_wrap=True)
    rng = random.Random(seed)
    state = new_game(players=players, variant=variant.value)
    rounds = 0
    while not state.is_over:
        if state.phase == "refill":
            state.deal(seed=rng.randrange(2**63))
            if state.is_over:
                out.print("no tile left in bag or lid: the game ends", soft_wrap=True)
                break
            rounds += 1
            if not quiet:
                out.print(render.round_header(state.to_json()), soft_wrap=True)
            continue
        seat, move = state.to_move, rng.choice(state.legal_moves())
        state.play(move)
        if not quiet:
            out.print(f"  seat {seat}  ", render.move_text(str(move)), sep="", soft_wrap=True)
            if state.phase == "refill":  # at the end of the game, the final line says it
                out.print(render.scores_line(f"scores after round {rounds}", state.to_json()),
                          soft_wrap=True)
    final = state.to_json()
    out.print(render.scores_line(f"final after {rounds} rounds", final), soft_wrap=True)
    if json_out is not None:
        try:
            json_out.write_text(json.dumps(final, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            _fail(f"{json_out}: cannot write it ({exc.strerror or exc})")


# ---------------------------------------------------------------- commands in their own modules
from analysis.cli import elo, standings_command  # noqa: E402
from analysis.report_cli import report  # noqa: E402
from analysis.strategy_cli import marker, openings  # noqa: E402
from tournament.cli import app as league_app  # noqa: E402

from .analyze import analyze  # noqa: E402
from .play import play  # noqa: E402
from .replay import replay  # noqa: E402
from .series import series  # noqa: E402

for command in (analyze, play, series, replay, elo, report, openings, marker):
    app.command()(command)
app.command("standings")(standings_command)
app.add_typer(league_app, name="league")
