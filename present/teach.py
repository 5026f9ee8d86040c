"""The talk-through teaching variant (rules text 000): what a move will do, said before it is made.

``preview(state, move)`` returns a ``Preview``: the source, colour and number of tiles taken,
the destination line, how many tiles overflow to the floor and what they cost there (with the
starting-player marker if the move takes it), whether the line completes and what its tile would
score at tiling. ``preview_text`` words it for a person; ``hint`` is a bot's advice (MCTS's best moves). Nothing here changes the state: the
move is first tried on a clone, so a rule mistake raises ``IllegalMoveError`` with the engine's
own reason.

Scores follow the rules the engine implements (docs/rules.md): a placed tile scores its
horizontal run plus its vertical run (1 when isolated); the floor's seven slots cost
1 1 2 2 2 3 3; the marker taken with a full floor is kept beside the board at no cost (000).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from bots import make_bot
from engine import GameState, Move, rules
from engine.rules import COLOUR_NAMES, COLOURS, FLOOR_SLOTS, floor_penalty, wall_column


def placement_points(wall: list[str], row: int, col: int) -> int:
    """Points for a tile placed at ``wall[row][col]`` (0-based) on a wall of 5 strings ('.' empty)."""
    return rules.placement_points([ch != "." for line in wall for ch in line], row, col)


@dataclass
class Preview:
    """What a move will do. Draft fields are None for a gray tiling move and the reverse."""

    move: str
    seat: int
    source: str | None = None          # "factory 3" or "the centre"
    colour: str | None = None          # the colour's name
    taken: int = 0                     # tiles taken
    line: int | None = None            # destination pattern line 1..5 (None: the floor)
    held: int = 0                      # tiles the line held before the move
    placed: int = 0                    # tiles that go into the line
    overflow: int = 0                  # tiles that go to the floor (all of them for line None)
    to_lid: int = 0                    # tiles beyond the seventh floor slot (no cost)
    takes_marker: bool = False         # first take from the centre this round
    marker_on_floor: bool = False      # the marker takes a floor slot (False: kept beside the board)
    floor_cost: int = 0                # extra floor penalty this move adds at the end of the round
    completes: bool = False            # the line is full after the move
    tiling_points: int | None = None   # colored wall: what the line's tile scores at tiling
    column_points: dict[int, int] = field(default_factory=dict)  # gray wall: column -> points
    column: int | None = None          # gray tiling move: the chosen column
    points: int | None = None          # gray tiling move: what the placement scores


def preview(state: GameState, move: Move | str) -> Preview:
    """What ``move`` will do in ``state``; raises IllegalMoveError (the engine's reason) if illegal."""
    move = Move.parse(move)
    state.clone().play(move)  # the engine says why when the rules forbid it
    pos = state.to_json()
    seat = pos["to_move"]
    board = pos["boards"][seat]
    if move.is_tiling:
        return _tiling_preview(pos, board, move, seat)
    colour = COLOUR_NAMES[COLOURS.index(move.colour)]
    supply = pos["center"] if move.from_center else pos["factories"][move.factory - 1]
    taken = supply.count(move.colour)
    p = Preview(move=str(move), seat=seat, colour=colour, taken=taken,
                source="the centre" if move.from_center else f"factory {move.factory}", line=move.line)
    if move.line is None:
        p.overflow = taken
    else:
        held = len(board["lines"][move.line - 1])
        space = move.line - held
        p.held = held
        p.placed = min(taken, space)
        p.overflow = taken - p.placed
        p.completes = held + p.placed == move.line
    before = len(board["floor"])
    slots = before
    p.takes_marker = move.from_center and pos["marker"] == "center"
    if p.takes_marker and slots < FLOOR_SLOTS:
        p.marker_on_floor = True
        slots += 1
    free = FLOOR_SLOTS - slots
    p.to_lid = max(0, p.overflow - free)
    slots += p.overflow - p.to_lid
    p.floor_cost = floor_penalty(slots) - floor_penalty(before)
    if p.completes:
        wall = _wall_after_upper_lines(pos, board, move.line)
        row = move.line - 1
        if pos["variant"] == "colored":
            col = wall_column(COLOURS.index(move.colour), row)
            p.tiling_points = placement_points(wall, row, col)
        else:
            for col in range(5):
                if wall[row][col] == "." and all(wall[r][col] != move.colour for r in range(5)):
                    p.column_points[col + 1] = placement_points(wall, row, col)
    return p


def _wall_after_upper_lines(pos: dict, board: dict, line: int) -> list[str]:
    """The wall when ``line`` is tiled: on the coloured wall, complete lines above it tile first."""
    wall = list(board["wall"])
    if pos["variant"] != "colored":
        return wall  # gray: the columns of the lines above are not chosen yet
    for k in range(line - 1):
        tiles = board["lines"][k]
        if len(tiles) == k + 1:
            col = wall_column(COLOURS.index(tiles[0]), k)
            wall[k] = wall[k][:col] + tiles[0] + wall[k][col + 1:]
    return wall


def _tiling_preview(pos: dict, board: dict, move: Move, seat: int) -> Preview:
    row, col = move.line - 1, move.column - 1
    colour = board["lines"][row][0]
    return Preview(move=str(move), seat=seat, colour=COLOUR_NAMES[COLOURS.index(colour)],
                   line=move.line, column=move.column, completes=True,
                   points=placement_points(board["wall"], row, col))


def hint(state: GameState, iterations: int, seed: int, top: int = 3) -> list[dict]:
    """A bot's advice for the seat to move: MCTS's ``top`` best moves after ``iterations``
    iterations, each with ``move``, ``visits``, ``value`` (the chance of winning, 0 to 1) and
    ``pv`` (the line it expects); a ValueError when there is no move to choose."""
    return make_bot("mcts", seed=seed, iterations=iterations).analyze(state)[:top]


def preview_text(p: Preview) -> str:
    """The preview in words, one fact per line."""
    if p.column is not None:
        return (f"{p.move}: line {p.line}'s {p.colour} tile goes to wall row {p.line}, "
                f"column {p.column}: it scores {p.points} now.")
    plural = "s" if p.taken != 1 else ""
    dest = f"into pattern line {p.line}" if p.line is not None else "onto the floor"
    out = [f"{p.move}: take {p.taken} {p.colour} tile{plural} from {p.source} {dest}."]
    if p.takes_marker:
        where = ("onto your floor first" if p.marker_on_floor
                 else "beside your board (your floor is full: no extra cost)")
        out.append(f"First take from the centre: the starting-player marker goes {where}; "
                   "you open next round.")
    if p.line is not None:
        if p.overflow:
            out.append(f"{p.placed} fit{'s' if p.placed == 1 else ''} in line {p.line}; "
                       f"{p.overflow} overflow{'s' if p.overflow == 1 else ''} to the floor.")
        else:
            fits = f"All {p.taken} fit" if p.taken > 1 else "It fits"
            out.append(f"{fits} in line {p.line}; nothing overflows.")
    if p.to_lid:
        out.append(f"{p.to_lid} of them find no floor slot and go to the lid (no cost).")
    if p.floor_cost:
        out.append(f"Floor cost: -{p.floor_cost} at the end of the round.")
    elif p.overflow or p.takes_marker:
        out.append("Floor cost: nothing more (the floor is full).")
    else:
        out.append("Floor cost: none.")
    if p.line is not None and not p.completes:
        left = p.line - p.held - p.placed
        out.append(f"Line {p.line} is not complete yet: it scores nothing this round "
                   f"unless you fill it ({left} short now).")
    elif p.tiling_points is not None:
        out.append(f"Line {p.line} completes: at tiling its tile scores {p.tiling_points} "
                   "(if no line above completes first).")
    elif p.completes:
        cols = ", ".join(f"column {c}: {n}" for c, n in sorted(p.column_points.items()))
        out.append(f"Line {p.line} completes: at tiling you choose its column "
                   f"({cols or 'no legal column: the tiles would go to the floor'}).")
    return "\n".join(out)
