"""What every ``azul`` command shares: the error exit, the console, options and readers.

A command parses its arguments, calls the library, and turns a library error into one
``error: ...`` line on stderr and exit status 1 (``fail``): a run's settings and runs raise
``tournament.errors.AzulError`` (one base), whose message is that line. Options that mean the same thing in
several commands are written here once, as ``Annotated[..., typer.Option(help=...)]`` aliases.
"""
from __future__ import annotations

import random
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, Optional

import typer
from rich.console import Console

from bots import Bot
from bots.spec import bot_from_spec
from engine import GameState, InvalidPositionError
from present.strict_json import dumps, finite, json_rows  # noqa: F401 - finite, json_rows: for the commands

if TYPE_CHECKING:
    from tournament.runner import LeagueSummary


def fail(message: str) -> NoReturn:
    """End the command: ``error: MESSAGE`` on stderr, exit status 1."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)


# ---------------------------------------------------------------- output
Plain = Annotated[bool, typer.Option(
    "--plain", help="No colour or other styling (also automatic when output is not a terminal).")]


def console(plain: bool = False) -> Console:
    """Standard output for rich text: coloured on a terminal unless ``plain``."""
    return Console(color_system=None if plain else "auto", highlight=False, markup=False)


TERMINAL_MIN_WIDTH = 110  # on a terminal narrower than this, lines wrap rather than cells being cut


def print_table(table, out: Console | None = None) -> None:
    """Print a rich table whole, the one way every command prints one: off a terminal (a pipe, a
    file) at its full width, every cell in full whatever ``COLUMNS`` says; on a terminal at least
    ``TERMINAL_MIN_WIDTH`` columns wide, so that a table that fits there is never cut."""
    from rich.measure import Measurement

    out = out if out is not None else Console(highlight=False, markup=False)
    width = out.width
    if out.is_terminal:
        wanted = max(width, TERMINAL_MIN_WIDTH)
    else:
        wanted = max(width, Measurement.get(out, out.options.update_width(1 << 20), table).maximum)
    out.width = wanted
    try:
        out.print(table)
    finally:
        out.width = width


class Format(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"


FormatOpt = Annotated[Format, typer.Option(
    "--format", "-f", help="table (for people), csv or json (for programs).")]


def print_json(doc, indent: int | None = 2) -> None:
    """Print a document as strict JSON (RFC 8259, ``present.strict_json``: a NaN or an infinity is
    null, never ``NaN`` or ``Infinity`` in the output)."""
    typer.echo(dumps(doc, indent=indent))


# ---------------------------------------------------------------- games
class Variant(str, Enum):
    colored = "colored"
    gray = "gray"


VariantOpt = Annotated[Variant, typer.Option(
    case_sensitive=False, help="Wall variant: the printed coloured wall or the gray (free) wall.")]
Players = Annotated[int, typer.Option(min=2, max=4, help="Number of players, 2 to 4.")]


def seed_option(help: str, **options: Any) -> Any:
    """A ``--seed`` that may be left out: ``drawn_seed`` then draws one (the command prints it)."""
    return Annotated[Optional[int], typer.Option(help=help, show_default="random", **options)]


def drawn_seed(seed: int | None) -> int:
    """``seed``, or a fresh one when none was given."""
    return random.SystemRandom().randrange(2**32) if seed is None else seed


def spec_bot(option: str, spec: str, seed: int, players: int | None = None, variant: str = "colored") -> Bot:
    """The bot a ``--vs``/``--bot`` spec names (``bots.spec``), or fail with ``OPTION: why``;
    with ``players``, one that cannot play that table (``Bot.table_error``) fails too."""
    try:
        bot = bot_from_spec(spec, seed)
    except ValueError as exc:
        fail(f"{option}: {exc}")
    unfit = None if players is None else bot.table_error(players, variant)
    if unfit:
        fail(f"{option}: {unfit}")
    return bot


# ---------------------------------------------------------------- files
POSITION_HELP = "A position file in the azul-position/1 JSON format ('-' reads standard input)"


def position_argument(help: str = POSITION_HELP + ".") -> Any:
    return Annotated[Path, typer.Argument(help=help, metavar="POSITION.json", show_default=False)]


Position = position_argument()
RunDirs = Annotated[list[Path], typer.Argument(
    help="One or more run folders (<out>/<name>, e.g. runs/quick), read as one league.",
    metavar="RUN_DIR", show_default=False)]


def read_runs(run_dirs: list[Path]):
    """The folders of a RUN_DIR... argument checked once (``analysis.records.Runs``, which the
    command hands to every reader), each read once (a ``warning:`` on stderr for one given twice),
    or fail saying why they cannot be read (a damaged part, two folders of one run...)."""
    from analysis.records import check_runs

    try:
        runs = check_runs(run_dirs)
    except (ValueError, OSError) as exc:
        fail(str(exc))
    for note in runs.notes:
        typer.echo(f"warning: {note}", err=True)
    return runs


def os_error_message(exc: OSError) -> str:
    """``PATH: cause`` for a failed read or write (the whole message where it names no path)."""
    cause = exc.strerror or str(exc)
    return f"{exc.filename}: {cause}" if exc.filename else cause


def read_position(path: Path, stdin: bool = False) -> GameState:
    """Read a position file (``-`` is standard input when ``stdin``).

    A ValueError names the file and what is wrong with it, in one line.
    """
    from_stdin = stdin and str(path) == "-"
    name = "<stdin>" if from_stdin else str(path)
    try:
        text = sys.stdin.read() if from_stdin else path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{name}: no such file") from None
    except UnicodeDecodeError:
        raise ValueError(f"{name}: not JSON (the file is not UTF-8 text)") from None
    except OSError as exc:
        raise ValueError(f"{name}: cannot read it ({exc.strerror or exc})") from None
    try:
        return GameState.from_json(text)
    except InvalidPositionError as exc:
        raise ValueError(f"{name}: {exc}") from None


def load_position(path: Path) -> GameState:
    """The position of a POSITION.json argument (``-``: standard input), or fail saying why."""
    try:
        return read_position(path, stdin=True)
    except ValueError as exc:
        fail(str(exc))


def write_text(path: Path, text: str) -> None:
    """Write a file the user named, or fail with ``PATH: cannot write it (why)``."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"{path}: cannot write it ({exc.strerror or exc})")


# ---------------------------------------------------------------- options and lines every run command shares
OutOpt = Annotated[Optional[Path], typer.Option(
    "--out", metavar="DIR", help="Folder (or s3://BUCKET/PREFIX) for the run (records go to DIR/<name>/); "
    "default: the config's out.")]
RunNameOpt = Annotated[Optional[str], typer.Option(
    "--name", help="The run folder's name under --out (default: the file's name: field); the command a "
    "stopped run prints names its folder so.")]
AddressOpt = Annotated[Optional[str], typer.Option(
    "--address", metavar="ADDR", help="Join this Ray cluster (host:port, or 'auto'); default: RAY_ADDRESS, "
    "else start a local Ray.")]
WorkersOpt = Annotated[Optional[int], typer.Option(
    "--workers", metavar="N", min=0, help="Games played at once (default: the CPUs); 0 plays in this "
    "process without Ray.")]
ResumeOpt = Annotated[bool, typer.Option(
    "--resume", help="Finish a stopped league: play only the games not yet recorded.")]
FreshOpt = Annotated[bool, typer.Option(
    "--fresh", help="Delete this league's earlier records and start it over.")]
NoMlflowOpt = Annotated[bool, typer.Option("--no-mlflow", help="Do not log the league to MLflow.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar (or progress lines).")]


def fail_if_forfeited(summary: LeagueSummary) -> None:
    """Exit 1 with one line when a bot forfeited every game it played (the records are complete)."""
    forfeited = [f"{bot} ({games:,} of {games:,})" for bot, games in summary.forfeited]
    if forfeited:
        fail(f"{'a bot' if len(forfeited) == 1 else 'bots'} forfeited every game: {', '.join(forfeited)}; "
             "the records are complete, see their error column (azul league status, azul replay)")


def print_referee(out: Console, league) -> list[str]:
    """Before a league starts: when a seat (or a setting) sends its games to the Python referee,
    which one and why (the compiled loop plays the others many times faster). Returns the reasons
    (``fastloop.why_python_referee``), which ``run_league(referee_reasons=...)`` takes on."""
    from tournament.fastloop import why_python_referee

    reasons = why_python_referee(league)
    if reasons:
        out.print("the Python referee plays these games (the compiled loop cannot):", soft_wrap=True,
                  markup=False)
        for reason in reasons:
            out.print(f"  {reason}", soft_wrap=True, markup=False)
    return reasons


def referee_text(referee: str) -> str:
    """``compiled`` -> ``the compiled loop``, ``python`` -> ``the Python referee``, ``mixed`` -> both."""
    return {"compiled": "the compiled loop", "python": "the Python referee"}.get(
        referee, "the compiled loop and the Python referee")
