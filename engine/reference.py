"""A plain, pure-Python implementation of the Azul rules: the test oracle for the compiled core.

Every function works on positions in the ``azul-position/1`` format (SPEC.md section 3) and returns
a new dict; no argument is ever changed. Each rules decision follows docs/rules.md. This module
imports nothing from the rest of ``engine`` on purpose, so that it can check the core independently.
It is written to be read, not to be fast.
"""

from itertools import permutations

COLOURS = "BYRKW"
FLOOR_COSTS = (1, 1, 2, 2, 2, 3, 3)
FLOOR_SLOTS = len(FLOOR_COSTS)
FACTORY_COUNT = {2: 5, 3: 7, 4: 9}
MARKER = "1"  # the starting-player marker on a floor


# --------------------------------------------------------------------------------- small helpers

def _sorted_tiles(tiles):
    """Tiles as a string sorted in colour order B, Y, R, K, W."""
    return "".join(sorted(tiles, key=COLOURS.index))


def _counts(tiles):
    return {c: tiles.count(c) for c in COLOURS}


def _copy(pos):
    """A copy deep enough that changing it never touches ``pos``."""
    new = dict(pos)
    new["factories"] = list(pos["factories"])
    new["bag"] = dict(pos["bag"])
    new["lid"] = dict(pos["lid"])
    new["boards"] = [
        {"score": b["score"], "lines": list(b["lines"]), "wall": list(b["wall"]), "floor": b["floor"]}
        for b in pos["boards"]
    ]
    if "ranks" in pos:
        new["ranks"] = list(pos["ranks"])
    return new


def _line_accepts(board, row, colour):
    """An empty line takes a colour not yet in its wall row; a started line only its own colour."""
    line = board["lines"][row]
    if line:
        return line[0] == colour and len(line) < row + 1
    return colour not in board["wall"][row]


def _gray_columns(wall, row, colour):
    """Empty squares of ``row`` where ``colour`` repeats in neither the row nor the column."""
    if colour in wall[row]:
        return []
    return [col for col in range(5)
            if wall[row][col] == "." and all(wall[r][col] != colour for r in range(5))]


def _to_floor(pos, board, tiles):
    """Drop tiles on the floor, left to right; those beyond seven slots go to the lid."""
    room = FLOOR_SLOTS - len(board["floor"])
    board["floor"] += tiles[:room]
    for tile in tiles[room:]:
        pos["lid"][tile] += 1


def _placement_points(wall, row, col):
    """Points for the tile just placed at (row, col): its horizontal plus its vertical run."""
    def run(cells):
        length = 0
        for cell in cells:
            if cell == ".":
                break
            length += 1
        return length

    line, column = wall[row], [wall[r][col] for r in range(5)]
    across = 1 + run(reversed(line[:col])) + run(line[col + 1:])
    down = 1 + run(reversed(column[:row])) + run(column[row + 1:])
    if across == 1 and down == 1:
        return 1
    return (across if across > 1 else 0) + (down if down > 1 else 0)


def _complete_rows(wall):
    return sum("." not in row for row in wall)


def _first_complete_line(board):
    for row in range(5):
        if len(board["lines"][row]) == row + 1:
            return row
    return None


# --------------------------------------------------------------------------------- public API

def new_position(players, variant="colored"):
    """A new game before its first deal: phase ``refill``, round 1, seat 0 to open."""
    if players not in FACTORY_COUNT:
        raise ValueError(f"players must be 2, 3 or 4, not {players!r}")
    if variant not in ("colored", "gray"):
        raise ValueError(f"variant must be 'colored' or 'gray', not {variant!r}")
    return {
        "format": "azul-position/1",
        "variant": variant,
        "players": players,
        "round": 1,
        "phase": "refill",
        "to_move": 0,
        "opener": 0,
        "factories": [""] * FACTORY_COUNT[players],
        "center": "",
        "marker": "center",
        "bag": {c: 20 for c in COLOURS},
        "lid": {c: 0 for c in COLOURS},
        "boards": [{"score": 0, "lines": [""] * 5, "wall": ["....."] * 5, "floor": ""}
                   for _ in range(players)],
    }


def legal_moves(pos):
    """The legal moves in canonical notation and in the documented order; [] in refill and over."""
    board = pos["boards"][pos["to_move"]]
    if pos["phase"] == "draft":
        moves = []
        sources = [(str(i + 1), tiles) for i, tiles in enumerate(pos["factories"])]
        sources.append(("C", pos["center"]))
        for name, tiles in sources:
            for colour in COLOURS:
                if colour in tiles:
                    moves += [f"{name}{colour}{row + 1}" for row in range(5)
                              if _line_accepts(board, row, colour)]
                    moves.append(f"{name}{colour}F")
        return moves
    if pos["phase"] == "tiling":
        row = _first_complete_line(board)
        columns = _gray_columns(board["wall"], row, board["lines"][row][0])
        return [f"{row + 1}@{col + 1}" for col in columns]
    return []


def play(pos, move):
    """Apply a draft move or a gray tiling move, then every automatic step that follows it."""
    if not isinstance(move, str):
        raise ValueError(f"a move is a string, not {move!r}")
    move = move.upper()
    if move not in legal_moves(pos):
        raise ValueError(f"illegal move {move!r} in phase {pos['phase']!r} for seat {pos['to_move']}")
    new = _copy(pos)
    seat = new["to_move"]
    board = new["boards"][seat]

    if new["phase"] == "tiling":
        _place(new, board, int(move[0]) - 1, int(move[2]) - 1)
        return _tile(new, seat)

    source, colour, destination = move
    if source == "C":
        taken = new["center"].count(colour)
        new["center"] = new["center"].replace(colour, "")
        if new["marker"] == "center":  # the first take from the centre this round
            new["marker"] = seat
            if len(board["floor"]) < FLOOR_SLOTS:  # else it is kept beside the board (house rule)
                board["floor"] += MARKER
    else:
        index = int(source) - 1
        tiles = new["factories"][index]
        taken = tiles.count(colour)
        new["factories"][index] = ""
        new["center"] = _sorted_tiles(new["center"] + tiles.replace(colour, ""))

    overflow = taken
    if destination != "F":
        row = int(destination) - 1
        fits = min(taken, row + 1 - len(board["lines"][row]))
        board["lines"][row] += colour * fits
        overflow = taken - fits
    _to_floor(new, board, colour * overflow)

    new["to_move"] = (seat + 1) % new["players"]
    if any(new["factories"]) or new["center"]:
        return new
    return _tile(new, 0)


def deal(pos, factories):
    """A forced deal in phase ``refill``: it must be one that drawing from bag, then lid, could make."""
    if pos["phase"] != "refill":
        raise ValueError(f"deal is only possible in phase 'refill', not {pos['phase']!r}")
    count = len(pos["factories"])
    if not isinstance(factories, (list, tuple)) or len(factories) != count:
        raise ValueError(f"a deal needs exactly {count} factory strings")
    factories = [str(f).upper() for f in factories]
    for tiles in factories:
        if any(tile not in COLOURS for tile in tiles):
            raise ValueError(f"factory {tiles!r} holds something that is not a colour letter")
    factories = [_sorted_tiles(tiles) for tiles in factories]

    bag, lid = pos["bag"], pos["lid"]
    in_bag = sum(bag.values())
    needed = min(4 * count, in_bag + sum(lid.values()))
    sizes = [max(0, min(4, needed - 4 * i)) for i in range(count)]
    if [len(tiles) for tiles in factories] != sizes:
        raise ValueError(f"factory sizes must be {sizes}: full ones in order, then the rest")

    new = _copy(pos)
    if needed == 0:  # neither bag nor lid holds a tile: no tile can ever move again
        return _finish(new)

    drawn = _counts("".join(factories))
    if in_bag >= needed:  # everything comes out of the bag; the lid stays where it is
        if any(drawn[c] > bag[c] for c in COLOURS):
            raise ValueError("the deal holds tiles that are not in the bag")
        new["bag"] = {c: bag[c] - drawn[c] for c in COLOURS}
    else:
        # The first in_bag draws empty the bag; then the whole lid moves in and drawing goes on.
        # Factories before ``split`` come from the bag alone, those after it from the lid alone.
        split = in_bag // 4
        early = _counts("".join(factories[:split]))
        left_in_bag = {c: bag[c] - early[c] for c in COLOURS}
        split_factory = _counts(factories[split])
        from_lid = {c: drawn[c] - bag[c] for c in COLOURS}
        if any(left_in_bag[c] < 0 or left_in_bag[c] > split_factory[c] for c in COLOURS):
            raise ValueError("the deal does not draw every bag tile first, factory by factory")
        if any(from_lid[c] < 0 or from_lid[c] > lid[c] for c in COLOURS):
            raise ValueError("the deal holds tiles that are in neither the bag nor the lid")
        new["bag"] = {c: lid[c] - from_lid[c] for c in COLOURS}
        new["lid"] = {c: 0 for c in COLOURS}

    new["factories"] = factories
    new["center"] = ""
    new["marker"] = "center"
    new["phase"] = "draft"
    new["to_move"] = new["opener"]
    return new


def ranks(scores, complete_rows):
    """1 for the best; ties on score go to more complete rows; still tied share (1, 1, 3)."""
    keys = list(zip(scores, complete_rows))
    return [1 + sum(other > mine for other in keys) for mine in keys]


# --------------------------------------------------------------------------------- round end

def _place(pos, board, row, col):
    """Move the rightmost tile of a complete line to the wall, score it, the rest to the lid."""
    colour = board["lines"][row][0]
    board["wall"][row] = board["wall"][row][:col] + colour + board["wall"][row][col + 1:]
    board["score"] += _placement_points(board["wall"], row, col)
    pos["lid"][colour] += row  # a complete line holds row + 1 tiles; one went to the wall
    board["lines"][row] = ""


def _tile(pos, first_seat):
    """Tile seat by seat, line by line; stop in phase ``tiling`` where a gray choice is due."""
    for seat in range(first_seat, pos["players"]):
        board = pos["boards"][seat]
        for row in range(5):
            line = board["lines"][row]
            if len(line) < row + 1:
                continue
            colour = line[0]
            if pos["variant"] == "colored":
                _place(pos, board, row, (COLOURS.index(colour) + row) % 5)
            elif _gray_columns(board["wall"], row, colour):
                pos["phase"] = "tiling"
                pos["to_move"] = seat
                return pos
            else:  # no legal square: the whole line falls to the floor, with normal overflow
                board["lines"][row] = ""
                _to_floor(pos, board, line)
    return _end_round(pos)


def _end_round(pos):
    """Floor penalties for everyone, then the end of the game or the next refill."""
    for board in pos["boards"]:
        board["score"] = max(0, board["score"] - sum(FLOOR_COSTS[:len(board["floor"])]))
        for tile in board["floor"]:
            if tile != MARKER:
                pos["lid"][tile] += 1
        board["floor"] = ""
    next_opener = pos["opener"] if pos["marker"] == "center" else pos["marker"]
    pos["to_move"] = next_opener
    pos["marker"] = next_opener
    if any(_complete_rows(board["wall"]) for board in pos["boards"]) or not _can_still_end(pos):
        return _finish(pos)
    pos["phase"] = "refill"
    pos["round"] += 1
    pos["opener"] = next_opener
    return pos


def _can_still_end(pos):
    """Whether any seat could ever complete a wall row (docs/rules.md, games that cannot end).

    A colour with no tile in bag or lid at the end of a round is frozen for good. A row is
    reachable when its pattern line holds no frozen colour and none of its missing colours is
    frozen; on the gray wall its missing colours also need distinct empty squares whose columns
    lack them.
    """
    frozen = {c for c in COLOURS if pos["bag"][c] + pos["lid"][c] == 0}
    for board in pos["boards"]:
        wall = board["wall"]
        for row in range(5):
            line = board["lines"][row]
            missing = [c for c in COLOURS if c not in wall[row]]
            if (line and line[0] in frozen) or frozen.intersection(missing):
                continue
            if pos["variant"] == "colored":
                return True
            empty = [col for col in range(5) if wall[row][col] == "."]
            for columns in permutations(empty):
                if all(c not in (wall[r][col] for r in range(5)) for c, col in zip(missing, columns)):
                    return True
    return False


def _finish(pos):
    """End bonuses (2 a row, 7 a column, 10 a colour), phase ``over`` and the ranks."""
    rows = []
    for board in pos["boards"]:
        wall = board["wall"]
        full_rows = _complete_rows(wall)
        full_columns = sum(all(wall[r][col] != "." for r in range(5)) for col in range(5))
        full_colours = sum("".join(wall).count(c) == 5 for c in COLOURS)
        board["score"] += 2 * full_rows + 7 * full_columns + 10 * full_colours
        rows.append(full_rows)
    pos["phase"] = "over"
    pos["ranks"] = ranks([board["score"] for board in pos["boards"]], rows)
    return pos
