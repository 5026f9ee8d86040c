"""``azul analyze``: a bot's view of a position, move by move (see docs/cli.md).

Any registered bot with an ``analyze(state, iterations=...)`` method can be asked; it returns one
row per root move: ``{"move", "visits", "value", "pv"}``. This module only loads the position,
builds the bot, calls it and prints the rows (a rich table, or JSON with ``--json``).
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from bots import BOTS, bot_parameters, make_bot

PositionArg = Annotated[Path, typer.Argument(
    help="A position file in the azul-position/1 JSON format ('-' reads standard input), "
         "in phase draft or tiling.", metavar="POSITION.json", show_default=False)]
BotOpt = Annotated[str, typer.Option(
    "--bot", help="The bot type that analyzes (one with an analyze method, e.g. mcts).")]
IterationsOpt = Annotated[int, typer.Option(
    "--iterations", "-n", min=1, help="Search iterations for the whole analysis.")]
SeedOpt = Annotated[int, typer.Option(help="The bot's seed; the same seed gives the same analysis.")]
TopOpt = Annotated[int, typer.Option(
    "--top", min=0, help="Show the N most visited moves (0 shows every legal move).")]
JsonOpt = Annotated[bool, typer.Option(
    "--json", help="Print a JSON list of {move, visits, value, pv}, most visited first.")]
PlainOpt = Annotated[bool, typer.Option(
    "--plain", help="No colour or other styling (also automatic when output is not a terminal).")]


def analyzing_bots() -> list[str]:
    """The registered bot types that can analyze a position."""
    bot_parameters("random")  # makes the registry load the built-in bots
    return sorted(name for name, cls in BOTS.items() if callable(getattr(cls, "analyze", None)))


def run_analysis(state, bot: str, iterations: int, seed: int) -> list[dict]:
    """The bot's rows for ``state``, checked and sorted by visits (ties keep the bot's order).

    Raises ValueError with a one-line message for anything the user can fix.
    """
    if state.phase not in ("draft", "tiling"):
        why = "the game is over" if state.phase == "over" else "a deal is due"
        raise ValueError(f"nothing to analyze in phase {state.phase} ({why}); "
                         "a position in phase draft or tiling has moves to choose from")
    able = analyzing_bots()
    bot_parameters(bot)  # an unknown type: ValueError naming the known ones
    if bot not in able:
        raise ValueError(f"bot {bot!r} cannot analyze a position "
                         f"(bots that can: {', '.join(able) or 'none'})")
    player = make_bot(bot, seed=seed)
    rows = []
    for row in player.analyze(state, iterations=iterations):
        rows.append({"move": str(row["move"]), "visits": int(row["visits"]),
                     "value": float(row["value"]), "pv": [str(m) for m in row.get("pv", [])]})
    rows.sort(key=lambda r: -r["visits"])
    return rows


def analyze(
    position: PositionArg,
    bot: BotOpt = "mcts",
    iterations: IterationsOpt = 50000,
    seed: SeedOpt = 1,
    top: TopOpt = 10,
    as_json: JsonOpt = False,
    plain: PlainOpt = False,
) -> None:
    """Search a position and print the top moves with visits, mean value and principal variation.

    The value is the bot's mean value for the seat to move (for mcts a win value in [0, 1]).
    """
    from .main import _fail, _load  # the shared position loading and error line

    state = _load(position)
    started = time.perf_counter()
    try:
        rows = run_analysis(state, bot, iterations, seed)
    except ValueError as exc:
        _fail(str(exc))
    seconds = time.perf_counter() - started
    shown = rows[:top] if top else rows
    if as_json:
        typer.echo(json.dumps(shown))
        return
    out = Console(color_system=None if plain else "auto", highlight=False)
    total = sum(r["visits"] for r in rows)
    out.print(f"analysis: {bot}, {iterations} iterations, seed {seed}, {seconds:.1f} s | "
              f"round {state.to_json()['round']} {state.phase}, seat {state.to_move} to move, "
              f"{len(rows)} moves", soft_wrap=True)
    table = Table(box=None, pad_edge=False, header_style="bold" if not plain else None)
    for column, justify in (("#", "right"), ("move", "left"), ("visits", "right"),
                            ("share", "right"), ("value", "right"), ("principal variation", "left")):
        table.add_column(column, justify=justify, no_wrap=column != "principal variation")
    for rank, row in enumerate(shown, 1):
        share = f"{100 * row['visits'] / total:.1f}%" if total else "-"
        table.add_row(str(rank), row["move"], str(row["visits"]), share, f"{row['value']:.3f}",
                      " ".join(row["pv"]) or "-")
    out.print(table)
    hidden = len(rows) - len(shown)
    if hidden:
        out.print(f"({hidden} more move{'s' if hidden > 1 else ''}; --top 0 shows them all)",
                  soft_wrap=True)
