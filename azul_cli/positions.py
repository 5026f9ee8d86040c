"""``azul show``, ``moves``, ``selfplay`` and ``analyze``: one position, or one random game.

``analyze`` asks any registered bot with an ``analyze(state, iterations=...)`` method
(``present.analyze.run_analysis``); it returns one row per root move: ``{"move", "visits", "value", "pv"}``, printed as a rich table or JSON.
See docs/cli.md.
"""
from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from engine import new_game
from engine.loop import Dealt, Moved, play
from present.analyze import run_analysis

from . import render
from .common import (POSITION_HELP, Players, Plain, Position, VariantOpt, Variant, console,
                     drawn_seed, fail, load_position, position_argument, print_json, print_table,
                     seed_option, write_text)

Seed = seed_option("Seed for the deals and the moves; the same seed plays the same game. "
                   "Without it, a seed is drawn and printed.")
Quiet = Annotated[bool, typer.Option(
    "--quiet", "-q", help="Print only the final scores and ranks, not every move.")]
JsonOut = Annotated[Path | None, typer.Option(
    metavar="FILE", help="Also write the final position (azul-position/1 JSON) to FILE.")]
OneLine = Annotated[bool, typer.Option("--line", help="All moves on one line, separated by spaces.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print the moves as a JSON list of strings.")]

SearchPosition = position_argument(POSITION_HELP + ", in phase draft or tiling.")
BotOpt = Annotated[str, typer.Option(
    "--bot", help="The bot type that analyzes (one with an analyze method, e.g. mcts).")]
IterationsOpt = Annotated[int, typer.Option(
    "--iterations", "-n", min=1, help="Search iterations for the whole analysis.")]
BotSeed = Annotated[int, typer.Option(help="The bot's seed; the same seed gives the same analysis.")]
TopOpt = Annotated[int, typer.Option(
    "--top", min=0, help="Show the N most visited moves (0 shows every legal move).")]
RowsJson = Annotated[bool, typer.Option(
    "--json", help="Print a JSON list of {move, visits, value, pv}, most visited first.")]


def show(position: Position, plain: Plain = False) -> None:
    """Draw a position: factories, centre, bag and lid, and every player's board."""
    state = load_position(position)
    console(plain).print(render.position_view(state.to_json()))


def moves(position: Position, line: OneLine = False, as_json: AsJson = False) -> None:
    """List the legal moves of a position in notation, one per line, in the engine's order."""
    if line and as_json:
        fail("--line and --json: choose one")
    state = load_position(position)
    legal = [str(m) for m in state.legal_moves()]
    if as_json:
        print_json(legal, indent=None)
    elif not legal:
        why = "the game is over" if state.phase == "over" else "a deal is due (phase refill)"
        typer.echo(f"no legal moves: {why}", err=True)
    else:
        typer.echo(" ".join(legal) if line else "\n".join(legal))


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
    seed = drawn_seed(seed)
    out = console(plain)
    out.print(f"selfplay: {players} players, {variant.value} wall, seed {seed}", soft_wrap=True)
    rng = random.Random(seed)
    state = new_game(players=players, variant=variant.value)
    rounds = 0
    for event in play(state, lambda seat, view: rng.choice(view.legal_moves()), lambda r: rng.randrange(2**63)):
        if type(event) is Dealt:
            if state.is_over:
                out.print("no tile left in bag or lid: the game ends", soft_wrap=True)
                break
            rounds += 1
            if not quiet:
                out.print(render.round_header(state.to_json()), soft_wrap=True)
        elif type(event) is Moved and not quiet:
            out.print(f"  seat {event.played.seat}  ", render.move_text(str(event.played.move)), sep="",
                      soft_wrap=True)
            if state.phase == "refill":  # at the end of the game, the final line says it
                out.print(render.scores_line(f"scores after round {rounds}", state.to_json()),
                          soft_wrap=True)
    final = state.to_json()
    out.print(render.scores_line(f"final after {rounds} rounds", final), soft_wrap=True)
    if json_out is not None:
        write_text(json_out, json.dumps(final, indent=2) + "\n")


# ---------------------------------------------------------------- analyze
def analyze(
    position: SearchPosition,
    bot: BotOpt = "mcts",
    iterations: IterationsOpt = 50000,
    seed: BotSeed = 1,
    top: TopOpt = 10,
    as_json: RowsJson = False,
    plain: Plain = False,
) -> None:
    """Search a position and print the top moves with visits, mean value and principal variation.

    The value is the bot's mean value for the seat to move (for mcts a win value in [0, 1]).
    """
    state = load_position(position)
    started = time.perf_counter()
    try:
        rows = run_analysis(state, bot, iterations, seed)
    except ValueError as exc:
        fail(str(exc))
    seconds = time.perf_counter() - started
    shown = rows[:top] if top else rows
    if as_json:
        print_json(shown, indent=None)
        return
    out = console(plain)
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
    print_table(table, out)
    hidden = len(rows) - len(shown)
    if hidden:
        out.print(f"({hidden} more move{'s' if hidden > 1 else ''}; --top 0 shows them all)",
                  soft_wrap=True)
