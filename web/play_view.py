"""A table's position as the play page draws it: plain data for the template (web/templates/play/),
read from the position format (``GameState.to_json()``) and the legal moves, never from the
engine's insides.

The person's choices come from ``legal_moves()`` only: a draft move is chosen in two clicks, a
source and colour (a *pick*, ``1B`` or ``CR``) and then a destination among those legal for it
(pattern lines, the floor); a gray-wall tiling move is one click on a legal column.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from engine import GameState, Move
from engine.rules import COLOUR_NAMES, COLOURS, FLOOR_COSTS, wall_colour
from present.teach import preview, preview_text


@dataclass
class Choice:
    """A move the person can make: its notation, a label, and (teaching, gray wall) its points."""

    move: str
    label: str
    points: int | None = None


@dataclass
class Choices:
    """What the person may do now: picks (source and colour) and, for the chosen pick, its
    destinations; or, tiling the gray wall, the legal columns of the line being tiled."""

    picks: set[str] = field(default_factory=set)
    pick: str | None = None
    destinations: list[Choice] = field(default_factory=list)
    tiling: list[Choice] = field(default_factory=list)
    tiling_line: int | None = None
    tiling_colour: str | None = None


def pick_of(move: Move) -> str:
    """A draft move's source and colour: ``1B`` for ``1B2``, ``CR`` for ``CRF``."""
    return str(move)[:2]


def choices(state: GameState, pick: str | None) -> Choices:
    """The person's choices in ``state`` (their turn), with ``pick`` chosen if it is legal."""
    legal = state.legal_moves()
    out = Choices()
    if state.phase == "tiling":
        board = state.to_json()["boards"][state.to_move]
        out.tiling_line = legal[0].line
        out.tiling_colour = board["lines"][legal[0].line - 1][0]
        out.tiling = [Choice(str(m), f"column {m.column}", preview(state, m).points) for m in legal]
        return out
    out.picks = {pick_of(m) for m in legal}
    if pick is not None and pick.upper() in out.picks:
        out.pick = pick.upper()
        out.destinations = [Choice(str(m), "floor" if m.line is None else f"line {m.line}")
                            for m in legal if pick_of(m) == out.pick]
    return out


def preview_lines(state: GameState, move: str) -> list[str] | None:
    """The teaching preview of ``move`` (what it takes, where the tiles go, what it scores), or
    None when it is not a legal move now."""
    try:
        return preview_text(preview(state, move)).split("\n")
    except ValueError:
        return None


def groups(letters: str, where: str) -> list[dict]:
    """A source's tiles grouped by colour, each group with its pick (``where`` is 1..9 or C)."""
    return [{"colour": c, "count": letters.count(c), "pick": f"{where}{c}"} for c in COLOURS if c in letters]


def position(state: GameState, names: list[str]) -> dict:
    """The position for the template: supplies, and per seat its pattern lines, wall and floor."""
    pos = state.to_json()
    colored = pos["variant"] == "colored"
    boards = []
    for seat, b in enumerate(pos["boards"]):
        wall = [[{"tile": ch if ch != "." else "", "hint": COLOURS[wall_colour(r, c)] if colored else ""}
                 for c, ch in enumerate(row)] for r, row in enumerate(b["wall"])]
        floor = [{"tile": b["floor"][i] if i < len(b["floor"]) else "", "cost": cost}
                 for i, cost in enumerate(FLOOR_COSTS)]
        lines = [{"line": k + 1, "tiles": tiles} for k, tiles in enumerate(b["lines"])]
        boards.append({"seat": seat, "name": names[seat], "score": b["score"], "lines": lines, "wall": wall,
                       "floor": floor, "rank": pos["ranks"][seat] if pos["phase"] == "over" else None})
    return {
        "pos": pos,
        "json": json.dumps(pos, sort_keys=True),
        "boards": boards,
        "factories": [{"number": n, "groups": groups(f, str(n))} for n, f in enumerate(pos["factories"], 1)],
        "centre": groups(pos["center"], "C"),
        "marker_in_centre": pos["marker"] == "center",
        "colour_names": dict(zip(COLOURS, COLOUR_NAMES)),
    }
