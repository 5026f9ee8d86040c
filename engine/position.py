"""Reading and checking positions in the `azul-position/1` JSON format (SPEC section 3).

`read_position` returns a new, normalized dict, or raises InvalidPositionError whose message starts
with the path of the offending field and says the rule. Standard library only.
"""

import json

from .errors import InvalidPositionError
from .rules import (COLOURS, FACTORIES, FACTORY_SIZE, FLOOR_SLOTS, MARKER, PHASES, VARIANTS,
                    complete_rows, ranks, wall_column)
from .rules import TILES_PER_COLOUR as PER_COLOUR

FORMAT = "azul-position/1"
KEYS = ("format", "variant", "players", "round", "phase", "to_move", "opener",
        "factories", "center", "marker", "bag", "lid", "boards")
BOARD_KEYS = ("score", "lines", "wall", "floor")
# Bounds the reader puts on numbers the rules leave open (docs/positions.md, "Ranges"): far above
# any real game, and far inside the core's 32-bit round and score, so play from a position read
# here can never overflow them.
MAX_ROUND = 1_000_000
MAX_SCORE = 1_000_000
_LETTERS = "B, Y, R, K, W"


def read_position(obj):
    """Read and check a position (dict or JSON string); return it normalized."""
    data = _load(obj)
    _check_keys(data, KEYS, "", optional=("ranks",))
    variant = _choice(data["variant"], "variant", VARIANTS)
    players = _int(data["players"], "players")
    if players not in FACTORIES:
        _fail("players", f"{players}, a game has 2 to 4 players")
    round_ = _int(data["round"], "round")
    if round_ < 1:
        _fail("round", f"{round_}, rounds count from 1")
    if round_ > MAX_ROUND:
        _fail("round", f"{round_} is out of range, a round is 1..{MAX_ROUND}")
    phase = _choice(data["phase"], "phase", PHASES)
    if phase == "tiling" and variant != "gray":
        _fail("phase", '"tiling" exists only in the gray variant (a coloured wall tiles itself)')
    pos = {
        "format": FORMAT, "variant": variant, "players": players, "round": round_, "phase": phase,
        "to_move": _seat(data["to_move"], "to_move", players),
        "opener": _seat(data["opener"], "opener", players),
        "factories": _read_factories(data["factories"], players),
        "center": _sorted(_letters(data["center"], "center", COLOURS)),
        "marker": _read_marker(data["marker"], players),
        "bag": _read_supply(data["bag"], "bag"),
        "lid": _read_supply(data["lid"], "lid"),
        "boards": _read_boards(data["boards"], players, variant),
    }
    if phase == "over" and "ranks" not in data:
        _fail("ranks", "missing, a position in phase over gives every seat's rank")
    if phase != "over" and "ranks" in data:
        _fail("ranks", f"only a position in phase over has ranks, this one is in phase {phase}")
    _check_tiles(pos)
    _check_marker(pos)
    _PHASE_CHECKS[phase](pos)
    if phase == "over":
        pos["ranks"] = _read_ranks(data["ranks"], pos)
    return pos


# Helpers: each checks one kind of value and fails with the path of the field.

def _fail(path, reason):
    raise InvalidPositionError(f"{path}: {reason}")


def _describe(value):
    if type(value) is int and value.bit_length() > 64:  # too long to print (or to convert)
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    name = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "an array", tuple: "an array", dict: "an object"}.get(type(value))
    if name is None:
        return "null" if value is None else type(value).__name__
    return name if isinstance(value, (list, tuple, dict)) else f"{name} ({json.dumps(value)})"


def _load(obj):
    if isinstance(obj, str):
        try:
            obj = json.loads(obj, object_pairs_hook=_no_duplicates)
        except json.JSONDecodeError as exc:
            where = f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
            raise InvalidPositionError(f"position: not JSON ({where})") from None
        except InvalidPositionError:  # a key twice (_no_duplicates)
            raise
        except RecursionError:
            _fail("position", "nested too deeply to read (a position nests arrays and objects 3 levels deep)")
        except ValueError as exc:  # e.g. an integer with more digits than Python converts
            raise InvalidPositionError(f"position: not read as JSON ({exc})") from None
        if not isinstance(obj, dict):
            _fail("position", f"the top level must be a JSON object, got {_describe(obj)}")
    elif not isinstance(obj, dict):
        _fail("position", f"must be a dict or a JSON string, got {_describe(obj)}")
    if "format" not in obj:
        _fail("format", f'missing, a position starts with "format": "{FORMAT}"')
    if obj["format"] != FORMAT:
        _fail("format", f'must be "{FORMAT}", got {_describe(obj["format"])}')
    return obj



def _no_duplicates(pairs):
    result = {}
    for key, value in pairs:
        if key in result:
            _fail(key, "appears twice in the same JSON object")
        result[key] = value
    return result


def _check_keys(obj, required, prefix, optional=()):
    for key in required:
        if key not in obj:
            _fail(prefix + key, "missing, the format requires it")
    for key in obj:
        if key not in required and key not in optional:
            _fail(prefix + str(key), f"unknown key, {FORMAT} has no such field")


def _int(value, path):
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(path, f"must be an integer, got {_describe(value)}")
    if value.bit_length() > 64:
        _fail(path, f"{_describe(value)} is far out of range")
    return value


def _list(value, path, length, noun, owner):
    if not isinstance(value, (list, tuple)):
        _fail(path, f"must be an array, got {_describe(value)}")
    if len(value) != length:
        _fail(path, f"{len(value)} {noun}, {owner} has {length}")
    return list(value)


def _choice(value, path, allowed):
    if not isinstance(value, str) or value not in allowed:
        _fail(path, f"{_describe(value)} is not one of {', '.join(allowed)}")
    return value


def _seat(value, path, players):
    seat = _int(value, path)
    if not 0 <= seat < players:
        _fail(path, f"{seat} is not a seat of a {players}-player game (seats 0..{players - 1})")
    return seat


def _letters(value, path, allowed):
    """A string of tile characters, upper-cased; every character must be in `allowed`."""
    if not isinstance(value, str):
        _fail(path, f"must be a string, got {_describe(value)}")
    for ch in value:
        if not (ch.isascii() and ch.upper() in allowed):
            more = {".": " or '.' for an empty square", MARKER: " or the marker '1'"}.get(allowed[-1], "")
            _fail(path, f"{ch!r} is not a tile letter ({_LETTERS}{more})")
    return value.upper()


def _sorted(tiles):
    return "".join(sorted(tiles, key=COLOURS.index))


def _complete_lines(board):
    return [k for k, line in enumerate(board["lines"]) if len(line) == k + 1]


# Fields, one function per part of the format.

def _read_factories(value, players):
    factories = _list(value, "factories", FACTORIES[players], "factories", f"a {players}-player game")
    result = []
    for i, factory in enumerate(factories):
        tiles = _letters(factory, f"factories[{i}]", COLOURS)
        if len(tiles) > FACTORY_SIZE:
            _fail(f"factories[{i}]", f"holds {len(tiles)} tiles, a factory holds at most {FACTORY_SIZE}")
        result.append(_sorted(tiles))
    return result


def _read_marker(value, players):
    if value == "center":
        return value
    if isinstance(value, str):
        _fail("marker", f'{_describe(value)} is neither "center" nor a seat')
    return _seat(value, "marker", players)


def _read_supply(value, path):
    if not isinstance(value, dict):
        _fail(path, f"must be an object with keys {_LETTERS}, got {_describe(value)}")
    for key in value:
        if key not in tuple(COLOURS):
            _fail(f"{path}.{key}", f"unknown key, the keys are {_LETTERS}")
    result = {}
    for colour in COLOURS:
        if colour not in value:
            _fail(f"{path}.{colour}", f"missing, the keys are {_LETTERS}")
        result[colour] = _int(value[colour], f"{path}.{colour}")
        if result[colour] < 0:
            _fail(f"{path}.{colour}", f"{result[colour]}, a tile count cannot be negative")
    return result


def _read_boards(value, players, variant):
    boards = _list(value, "boards", players, "boards", f"a {players}-player game")
    return [_read_board(board, f"boards[{i}]", variant) for i, board in enumerate(boards)]


def _read_board(board, path, variant):
    if not isinstance(board, dict):
        _fail(path, f"must be an object, got {_describe(board)}")
    _check_keys(board, BOARD_KEYS, path + ".")
    score = _int(board["score"], f"{path}.score")
    if score < 0:
        _fail(f"{path}.score", f"{score}, a score never falls below 0")
    if score > MAX_SCORE:
        _fail(f"{path}.score", f"{score} is out of range, a score is 0..{MAX_SCORE}")
    wall = _read_wall(board["wall"], f"{path}.wall", variant)
    lines = _read_lines(board["lines"], f"{path}.lines", wall)
    floor = _letters(board["floor"], f"{path}.floor", COLOURS + MARKER)
    if len(floor) > FLOOR_SLOTS:
        _fail(f"{path}.floor", f"holds {len(floor)} pieces, a floor has {FLOOR_SLOTS} slots")
    if floor.count(MARKER) > 1:
        _fail(f"{path}.floor", f"holds the marker '1' {floor.count(MARKER)} times, there is one marker")
    return {"score": score, "lines": lines, "wall": wall, "floor": floor}


def _read_wall(value, path, variant):
    wall = []
    for r, row in enumerate(_list(value, path, 5, "rows", "a wall")):
        wall.append(_letters(row, f"{path}[{r}]", COLOURS + "."))
        if len(wall[r]) != 5:
            _fail(f"{path}[{r}]", f"{len(wall[r])} squares, a wall row has 5")
    for r, row in enumerate(wall):
        for c, ch in enumerate(row):
            if ch != ".":
                _check_square(wall, r, c, ch, f"{path}[{r}]", variant)
    return wall


def _check_square(wall, r, c, ch, path, variant):
    """Coloured wall: the printed square. Gray wall: no colour twice in a row or a column."""
    home = wall_column(COLOURS.index(ch), r)
    if variant == "colored" and c != home:
        _fail(path, f"{ch} in column {c + 1} is off the printed pattern "
                    f"(row {r + 1} has {ch} in column {home + 1})")
    if wall[r].index(ch) != c:
        _fail(path, f"{ch} appears twice in row {r + 1}, a colour fits once in a row")
    above = [i for i in range(r) if wall[i][c] == ch]
    if above:
        _fail(path, f"{ch} in column {c + 1} repeats the {ch} of row {above[0] + 1}, "
                    "a colour fits once in a column")


def _read_lines(value, path, wall):
    result = []
    for k, line in enumerate(_list(value, path, 5, "lines", "a board")):
        where = f"{path}[{k}]"
        tiles = _letters(line, where, COLOURS)
        if len(tiles) > k + 1:
            _fail(where, f"holds {len(tiles)} tiles, line {k + 1} holds at most {k + 1}")
        if len(set(tiles)) > 1:
            mixed = " and ".join(sorted(set(tiles), key=COLOURS.index))
            _fail(where, f"mixes colours {mixed}, a line holds one colour")
        if tiles and tiles[0] in wall[k]:
            _fail(where, f"colour {tiles[0]} is already in wall row {k + 1}, "
                         "a line cannot take a colour its wall row has")
        result.append(tiles)
    return result


def _read_ranks(value, pos):
    players, boards = pos["players"], pos["boards"]
    given = _list(value, "ranks", players, "ranks", f"a {players}-player game")
    for i, rank in enumerate(given):
        _int(rank, f"ranks[{i}]")
    expected = ranks([b["score"] for b in boards], [complete_rows(b["wall"]) for b in boards])
    if given != expected:
        _fail("ranks", f"{given} does not follow from the scores and complete rows, the ranks are {expected}")
    return given


# Rules across fields.

def _check_tiles(pos):
    boards = pos["boards"]
    for colour in COLOURS:
        parts = {
            "bag": pos["bag"][colour],
            "lid": pos["lid"][colour],
            "factories": sum(f.count(colour) for f in pos["factories"]),
            "center": pos["center"].count(colour),
            "lines": sum(line.count(colour) for b in boards for line in b["lines"]),
            "walls": sum(row.count(colour) for b in boards for row in b["wall"]),
            "floors": sum(b["floor"].count(colour) for b in boards),
        }
        total = sum(parts.values())
        if total != PER_COLOUR:
            detail = ", ".join(f"{name} {count}" for name, count in parts.items())
            _fail("tiles", f"colour {colour} totals {total}, every colour must total {PER_COLOUR} ({detail})")


def _check_marker(pos):
    boards, marker, phase = pos["boards"], pos["marker"], pos["phase"]
    holders = [s for s, b in enumerate(boards) if MARKER in b["floor"]]
    if len(holders) > 1:
        _fail(f"boards[{holders[1]}].floor",
              f"holds the marker '1', but boards[{holders[0]}].floor holds it too, there is one marker")
    if phase in ("refill", "over"):
        for s, board in enumerate(boards):
            if board["floor"]:
                _fail(f"boards[{s}].floor", f"must be empty in phase {phase}, floors are cleared in tiling")
        return
    for s in holders:
        if marker != s:
            named = '"center"' if marker == "center" else f"seat {marker}"
            _fail(f"boards[{s}].floor", f"holds the marker '1', but marker is {named}")
    if marker != "center" and not holders and len(boards[marker]["floor"]) < FLOOR_SLOTS:
        _fail(f"boards[{marker}].floor", f"marker names seat {marker}, so this floor must hold the marker "
                                         "'1' or be full (7 tiles, the marker kept beside the board)")


def _no_complete_lines(pos, seats, why):
    for s in seats:
        for k in _complete_lines(pos["boards"][s]):
            _fail(f"boards[{s}].lines[{k}]", f"line {k + 1} is complete, {why}")


def _no_complete_wall_row(pos, seats, why):
    for s in seats:
        for r, row in enumerate(pos["boards"][s]["wall"]):
            if "." not in row:
                _fail(f"boards[{s}].wall[{r}]", f"row {r + 1} is complete, {why}")


def _supply_empty(pos):
    phase = pos["phase"]
    for i, factory in enumerate(pos["factories"]):
        if factory:
            _fail(f"factories[{i}]", f"holds {factory}, factories are empty in phase {phase}")
    if pos["center"]:
        _fail("center", f"holds {pos['center']}, the center is empty in phase {phase}")


def _check_draft(pos):
    if not any(pos["factories"]) and not pos["center"]:
        _fail("factories", "no tile in factories or center, phase draft needs a tile to take")
    _no_complete_wall_row(pos, range(pos["players"]), "the game would be over")


def _check_tiling(pos):
    _supply_empty(pos)
    seat = pos["to_move"]
    _no_complete_lines(pos, range(seat), f"but seat {seat} (to_move) tiles after this seat")
    _no_complete_wall_row(pos, range(seat + 1, pos["players"]),
                          f"but this seat tiles after seat {seat} and the game would be over")
    board = pos["boards"][seat]
    complete = _complete_lines(board)
    if not complete:
        _fail(f"boards[{seat}].lines", f"seat {seat} is to move in phase tiling but has no complete line")
    k, wall = complete[0], board["wall"]
    colour = board["lines"][k][0]
    if not any(wall[k][c] == "." and all(row[c] != colour for row in wall) for c in range(5)):
        _fail(f"boards[{seat}].lines[{k}]", f"topmost complete line, its {colour} has no legal square "
                                            f"in wall row {k + 1} (it would go to the floor)")


def _check_refill(pos):
    _supply_empty(pos)
    players, to_move, marker = pos["players"], pos["to_move"], pos["marker"]
    _no_complete_lines(pos, range(players), "complete lines are tiled before a refill")
    _no_complete_wall_row(pos, range(players), "the game would be over")
    if pos["opener"] != to_move:
        _fail("opener", f"{pos['opener']}, in phase refill opener equals to_move ({to_move})")
    if marker != to_move and not (pos["round"] == 1 and marker == "center"):
        _fail("marker", f"{json.dumps(marker)}, in phase refill the marker is with to_move ({to_move}), "
                        'or "center" before the first deal (round 1)')


def _check_over(pos):
    _supply_empty(pos)
    players, to_move, marker = pos["players"], pos["to_move"], pos["marker"]
    _no_complete_lines(pos, range(players), "complete lines are tiled before the game ends")
    # Whether a game with no complete wall row could still have gone on is checked by
    # GameState.from_json with the core's own rule (docs/rules.md, games that cannot end).
    if marker not in ("center", to_move):
        _fail("marker", f"{marker}, in phase over marker and to_move name the next opener ({to_move})")


_PHASE_CHECKS = {"draft": _check_draft, "tiling": _check_tiling, "refill": _check_refill, "over": _check_over}
