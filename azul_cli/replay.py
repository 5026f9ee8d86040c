"""``azul replay``: step through a recorded league game, in the terminal or as an HTML page.

The steps come from ``tournament.replay.replay_steps``: each deal and each move, with the
position after it. Steps are numbered from 1 (step 1 is round 1's deal). See docs/replay.md.
When the run holds a review of the game (``azul review run``; docs/review.md), the terminal view
shows its marks (``analysis.review_read.game_review``): a move's class, win probability and
points lost and the analyser's best move, the marks of the move list (``?!``, ``?``, ``??``) and
each seat's accuracy; ``--no-review`` hides them.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from analysis.review_read import MARKS, GameReview, game_review
from present.replay_page import page
from tournament.replay import ReplayGame, replay_steps

from . import render
from .common import Plain, console, fail, write_text

RunDirArg = Annotated[Path, typer.Argument(
    help="A league run folder (games/, results/, moves/, rounds/).", metavar="RUN_DIR", show_default=False)]
GameArg = Annotated[str, typer.Argument(
    help="The game's id, e.g. t000-d00000-a00.", metavar="GAME_ID", show_default=False)]
HtmlOpt = Annotated[Optional[Path], typer.Option(
    "--html", metavar="FILE", help="Write the replay as one self-contained HTML page to FILE.")]
StepOpt = Annotated[Optional[int], typer.Option(
    "--step", metavar="N", help="Print step N (1 is the first deal) with the move list and exit; "
                                "without it, a terminal steps interactively and other input prints the final step.")]

NoReviewOpt = Annotated[bool, typer.Option(
    "--no-review", help="In the terminal, leave out the marks of the run's review of the game (azul review run).")]

KEYS = "n or Enter: next, p: previous, f: first, l: last, a number: that step, q: quit"


CLASS_STYLES = {"best": "green", "good": "green", "inaccuracy": "yellow", "mistake": "dark_orange",
                "blunder": "bold red"}


def step_view(game: ReplayGame, i: int, review: GameReview | None = None) -> Group:
    """Step ``i`` (0-based): what was just played (with its review, when there is one), the
    position, the scores of the rounds so far."""
    step = game.steps[i]
    head = Text(f"{game.game_id} | step {i + 1} of {len(game.steps)} | ", style="bold")
    if step.move is None:
        head.append(f"round {step.round}: the deal")
    else:
        head.append(f"ply {step.ply}: seat {step.seat} ({game.bots[step.seat]}) played ")
        head.append_text(render.move_text(step.move))
    parts = [head]
    row = review.moves.get(step.ply) if review is not None and step.move is not None else None
    if row is not None:
        parts.append(review_line(row))
    parts += [render.position_view(step.position), Text(), scores_table(game, step.rounds_done)]
    if i == len(game.steps) - 1 and game.termination != "normal":
        parts.append(Text(f"the game stopped ({game.termination}): {game.error}", style="bold"))
    return Group(*parts)


def scores_table(game: ReplayGame, rounds_done: int) -> Table | Text:
    """The score after each round scored so far, one column per seat."""
    if not rounds_done:
        return Text("score after each round: no round scored yet")
    table = Table(title="score after each round", title_justify="left", box=None, padding=(0, 2))
    table.add_column("round", justify="right")
    for seat, bot in enumerate(game.bots):
        table.add_column(f"seat {seat} {bot}", justify="right", overflow="fold")  # a long name folds, whole
    for r, scores in enumerate(game.round_scores[:rounds_done], 1):
        table.add_row(str(r), *(str(s) for s in scores))
    return table


def review_line(row: dict) -> Text:
    """A reviewed move: ``review: blunder ?? | win 61% before, 24.3% lost | +4.2 points lost | best
    3K1, line 3K1 4W1 2B3`` (the best move and its line, its principal variation, only where the
    move was not the best)."""
    cls = row["class"]
    text = Text("review: ")
    text.append(f"{cls} {MARKS[cls]}" if cls in MARKS else cls, style=CLASS_STYLES.get(cls, ""))
    text.append(f" | win {row['win_before']:.0%} before, {row['win_loss']:.1%} lost"
                f" | {row['points_loss'] + 0.0:+.1f} points lost")
    if row["move"] != row["best"]:
        text.append(" | best ")
        text.append_text(render.move_text(row["best"]))
        if row["pv"]:
            text.append(f", line {row['pv']}")
    return text


def move_list(game: ReplayGame, review: GameReview | None = None) -> Text:
    """Every move, one line per round: ``round 2: 15.1B2 16.CRF?? ...``, each reviewed move
    marked by its class (``?!`` inaccuracy, ``?`` mistake, ``??`` blunder)."""
    text = Text()
    for step in game.steps:
        if step.move is None:
            if text:
                text.append("\n")
            text.append(f"round {step.round}:", style="bold")
        else:
            text.append(f" {step.ply}.")
            text.append_text(render.move_text(step.move))
            row = review.moves.get(step.ply) if review is not None else None
            if row is not None and row["class"] in MARKS:
                text.append(MARKS[row["class"]], style=CLASS_STYLES[row["class"]])
    return text


def result_line(game: ReplayGame) -> Text:
    """``result: seat 0 greedy 38 (rank 1), seat 1 random 0 (rank 2)`` from the results table."""
    seats = ", ".join(f"seat {s} {bot} {score} (rank {rank})"
                      for s, (bot, score, rank) in enumerate(zip(game.bots, game.scores, game.ranks)))
    return Text(f"result ({game.termination}): {seats}")


def accuracy_line(game: ReplayGame, review: GameReview) -> Text:
    """``accuracy (0 to 100): seat 0 greedy 91.2 (0 blunders), seat 1 random 63.0 (3 blunders)``,
    then a line naming the analyser."""
    seats = ", ".join(f"seat {s} {game.bots[s]} {acc:.1f} ({review.blunders.get(s, 0)} "
                      f"blunder{'' if review.blunders.get(s, 0) == 1 else 's'})"
                      for s, acc in review.accuracy.items())
    line = f"accuracy (0 to 100): {seats}\nreview by {review.analyser}"
    if review.others:
        line += f" (also reviewed by {', '.join(review.others)}: not shown)"
    return Text(line)


def browse(game: ReplayGame, out: Console, read: Callable[[str], str] = input, start: int = 0,
           review: GameReview | None = None) -> int:
    """Step through ``game`` on ``out`` by commands that ``read(prompt)`` returns, one a line.

    Returns the 0-based step shown last. End of input (EOFError) or ``q`` ends it.
    """
    last = len(game.steps) - 1
    i = start
    out.print(step_view(game, i, review))
    out.print(KEYS)
    while True:
        try:
            command = read(f"step {i + 1}/{last + 1} [n p f l number q]: ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            return i
        if command == "q":
            return i
        if command in ("", "n"):
            to = min(i + 1, last)
        elif command == "p":
            to = max(i - 1, 0)
        elif command == "f":
            to = 0
        elif command == "l":
            to = last
        elif command.isdigit() and 1 <= int(command) <= last + 1:
            to = int(command) - 1
        elif command.isdigit():
            out.print(f"no step {command}: steps are 1 to {last + 1}")
            continue
        else:
            out.print(f"unknown command {command!r}; {KEYS}")
            continue
        if to == i:
            out.print("already at the " + ("last" if i == last else "first") + " step")
            continue
        i = to
        out.print(step_view(game, i, review))


def replay(run_dir: RunDirArg, game_id: GameArg, html: HtmlOpt = None, step: StepOpt = None,
           plain: Plain = False, no_review: NoReviewOpt = False) -> None:
    """Step through a recorded league game: every deal and move, forwards and back.

    In a terminal: n or Enter next, p previous, f first, l last, a number: that step, q quits.

    With --step N, or input that is not a terminal: print one step and the move list, and exit.

    When the run holds a review of the game (azul review run), each move shows its class, the
    win probability and points it gave up and the analyser's best move; the move list marks
    inaccuracies ?!, mistakes ? and blunders ??, and each seat's accuracy follows the result.
    """
    try:
        game = replay_steps(run_dir, game_id)
    except KeyError as exc:
        fail(exc.args[0])
    except (ValueError, OSError) as exc:
        fail(str(exc))
    if step is not None and not 1 <= step <= len(game.steps):
        fail(f"--step {step}: the game has steps 1 to {len(game.steps)}")
    if html is not None:
        write_text(html, page(game.to_dict()))
        typer.echo(f"wrote {html} ({len(game.steps)} steps, {game.plies} moves)")
        if step is None:
            return
    out = console(plain)
    review = None if no_review else _review(run_dir, game_id)
    if step is None and sys.stdin.isatty():
        browse(game, out, review=review)
        return
    i = len(game.steps) - 1 if step is None else step - 1
    out.print(step_view(game, i, review))
    out.print()
    out.print(move_list(game, review))
    out.print(result_line(game))
    if review is not None:
        out.print(accuracy_line(game, review))


def _review(run_dir: Path, game_id: str) -> GameReview | None:
    """The run's review of the game, or None; a review that cannot be read is left out with a
    warning on stderr (the replay is the records', and shows without it)."""
    try:
        return game_review(run_dir, game_id)
    except (OSError, ValueError) as exc:  # a damaged part of reviews/, a store that cannot be read
        typer.echo(f"warning: the review of {game_id} is left out: {exc}", err=True)
        return None
