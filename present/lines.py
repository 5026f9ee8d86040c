"""The lines a game is told in, as plain text: a round's deal, the scores, a series' game totals
and its result, a person's verdict. ``azul play``, ``selfplay`` and ``series`` print them (in
colour: azul_cli/render.py styles the same text), the web table logs them.

Each reads a position in the ``azul-position/1`` format (``GameState.to_json()``) or a series'
results (``tournament.series``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tournament.series import SeriesGame, SeriesResult


def round_header(pos: dict) -> str:
    """The line that opens a round: its number, the opener and each factory's deal
    (``round 2 (seat 1 opens)  1:BBYR 2:KKWW ...``; an empty factory is ``-``)."""
    factories = "".join(f" {n}:{letters or '-'}" for n, letters in enumerate(pos["factories"], 1))
    return f"round {pos['round']} (seat {pos['to_move']} opens) {factories}"


def scores_line(label: str, pos: dict) -> str:
    """``label: seat 0 12, seat 1 9`` (with ranks once the game is over)."""
    parts = []
    for seat, board in enumerate(pos["boards"]):
        rank = f" (rank {pos['ranks'][seat]})" if pos["phase"] == "over" else ""
        parts.append(f"seat {seat} {board['score']}{rank}")
    return f"{label}: " + ", ".join(parts)


def verdict(ranks: list[int], seat: int) -> str:
    """A person's result in a finished game (its ``ranks``), in a few words."""
    rank = ranks[seat]
    return ("You win!" if rank == 1 and ranks.count(1) == 1 else
            "You share the win." if rank == 1 else f"You finish rank {rank}.")


def game_line(game: SeriesGame, names: list[str]) -> str:
    """``game 1 (seat 0 opened, 5 rounds): seat 0 greedy 82 points, 2 complete rows; ...``."""
    seats = "; ".join(f"seat {s} {names[s]} {game.scores[s]} points, {_rows(game.complete_rows[s])}"
                      for s in range(len(names)))
    return f"game {game.number} totals (seat {game.opener} opened, {game.rounds} rounds): {seats}"


def result_lines(result: SeriesResult, names: list[str]) -> list[str]:
    """The combined table and the verdict with the tie-break that settled it."""
    lines = ["series result (combined score, then complete rows):"]
    width = max(len(n) for n in names)
    for s, name in enumerate(names):
        parts = " + ".join(f"{g.scores[s]:>3}" for g in result.games)
        lines.append(f"  seat {s} {name:<{width}}  {parts} = {result.totals[s]:>3} points, "
                     f"{_rows(result.complete_rows[s])}, rank {result.ranks[s]}")
    win = result.winners
    if result.decided_by == "combined score":
        lines.append(f"winner: seat {win[0]} ({names[win[0]]}) on combined score")
    elif result.decided_by == "complete rows":
        best = result.totals[win[0]]
        lines.append(f"winner: seat {win[0]} ({names[win[0]]}) on complete rows "
                     f"(combined score tied at {best})")
    else:
        who = " and ".join(f"seat {s} ({names[s]})" for s in win)
        lines.append(f"shared: {who} tie on combined score ({result.totals[win[0]]}) "
                     f"and complete rows ({result.complete_rows[win[0]]})")
    return lines


def _rows(n: int) -> str:
    return f"{n} complete row{'' if n == 1 else 's'}"
