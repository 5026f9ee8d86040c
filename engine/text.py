"""A position (``azul-position/1``, ``GameState.to_json()``) as plain text, without colour.

``status`` is the line that says whose turn it is (the terminal board, azul_cli/render.py, prints
it in bold); ``board_text`` the whole position in a few plain lines, what an RL environment's
``ansi`` render returns (engine.rl). Tiles are upper-case letters, the coloured wall's empty
squares lower-case letters, empty slots ``.``; ``1`` is the starting-player marker.
"""
from __future__ import annotations

from .rules import COLOURS, FLOOR_SLOTS, wall_colour


def ordinal(n: int) -> str:
    return f"{n}{'st' if n == 1 else 'nd' if n == 2 else 'rd' if n == 3 else 'th'}"


def status(pos: dict) -> str:
    """Who is to do what: round, phase, seat to move (or the ranks when the game is over)."""
    head = f"Azul, {pos['players']} players, {pos['variant']} wall | round {pos['round']} | "
    phase, seat = pos["phase"], pos["to_move"]
    if phase == "draft":
        return head + f"draft | seat {seat} to move"
    if phase == "tiling":
        return head + f"tiling | seat {seat} to move (chooses a wall column)"
    if phase == "refill":
        return head + f"refill | a deal is due, seat {seat} opens"
    return head + "game over | " + ", ".join(f"seat {s} {ordinal(r)}" for s, r in enumerate(pos["ranks"]))


def _counts(counts: dict) -> str:
    return f"{sum(counts.values()):>3}  " + " ".join(f"{c}{counts[c]}" for c in COLOURS)


def _wall_row(pos: dict, row: int, letters: str) -> str:
    gray = pos["variant"] == "gray"
    return " ".join(x if x != "." or gray else COLOURS[wall_colour(row, c)].lower()
                    for c, x in enumerate(letters))


def board_text(pos: dict) -> str:
    """The status line, the supply, then each seat's score, pattern lines, wall and floor."""
    centre = ("1" if pos["marker"] == "center" else "") + pos["center"]
    out = [status(pos), "",
           "factories  " + " ".join(f"{n}:{t or '-'}" for n, t in enumerate(pos["factories"], 1)),
           f"centre     {' '.join(centre) or '-'}",
           f"bag        {_counts(pos['bag'])}", f"lid        {_counts(pos['lid'])}"]
    for seat, board in enumerate(pos["boards"]):
        title = f"seat {seat}  score {board['score']}"
        if pos["phase"] == "over":
            title += f"  rank {pos['ranks'][seat]}"
        elif seat == pos["to_move"] and pos["phase"] in ("draft", "tiling"):
            title += "  < to move"
        if pos["marker"] == seat and "1" not in board["floor"]:
            title += "  holds 1"
        out += ["", title]
        for k, line in enumerate(board["lines"]):
            slots = " ".join("." * (k + 1 - len(line)) + line)
            out.append(f"{k + 1} {slots:>9} | {_wall_row(pos, k, board['wall'][k])}")
        out.append("floor " + " ".join(board["floor"].ljust(FLOOR_SLOTS, ".")))
    return "\n".join(out) + "\n"
