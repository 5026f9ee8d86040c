"""Reading and checking the azul-position/1 format (SPEC section 3, docs/rules.md)."""

import copy
import json
import re
import sys
import types
from pathlib import Path

import pytest

try:
    from engine.position import COLOURS, InvalidPositionError, ranks, read_position
except ImportError:  # engine/__init__.py needs the compiled core: load the pure-Python modules alone
    _package = types.ModuleType("engine")
    _package.__path__ = [str(Path(__file__).resolve().parents[1] / "engine")]
    sys.modules["engine"] = _package
    from engine.position import COLOURS, InvalidPositionError, ranks, read_position

KEYS = ["format", "variant", "players", "round", "phase", "to_move", "opener", "factories",
        "center", "marker", "bag", "lid", "boards"]
EMPTY_WALL = ["....."] * 5

SPEC_EXAMPLE = (Path(__file__).parent / "data" / "spec_example.json").read_text()  # SPEC section 3


def board(score=0, lines=("", "", "", "", ""), wall=EMPTY_WALL, floor=""):
    return {"score": score, "lines": list(lines), "wall": list(wall), "floor": floor}


def balance(pos):
    """Give the bag whatever the rest of the position leaves of each colour's 20 tiles.

    A position broken elsewhere (a field missing or of the wrong type) is left as it is."""
    try:
        boards = pos["boards"]
        if sorted(pos["bag"]) != sorted(COLOURS) or None in pos["bag"].values():
            return pos
        for colour in COLOURS:
            held = [pos["lid"][colour], pos["center"].upper().count(colour)]
            held += [f.upper().count(colour) for f in pos["factories"]]
            held += [s.upper().count(colour) for b in boards for s in b["lines"] + b["wall"] + [b["floor"]]]
            pos["bag"][colour] = 20 - sum(held)
    except (KeyError, TypeError, AttributeError):
        pass
    return pos


def base(variant, players, round_, phase, to_move, opener, marker, boards, **extra):
    pos = {"format": "azul-position/1", "variant": variant, "players": players, "round": round_,
           "phase": phase, "to_move": to_move, "opener": opener,
           "factories": [""] * {2: 5, 3: 7, 4: 9}[players], "center": "", "marker": marker,
           "bag": dict.fromkeys(COLOURS, 0), "lid": dict.fromkeys(COLOURS, 0), "boards": boards}
    pos.update(extra)
    return pos


def draft():
    return json.loads(SPEC_EXAMPLE)


def tiling():
    """Gray variant: seat 0 has tiled (and holds the marker), seat 1 places its line 2."""
    return balance(base("gray", 2, 2, "tiling", 1, 0, 0, [
        board(3, ["", "", "R", "", ""], ["Y....", "....."] + ["....."] * 3, "1BB"),
        board(2, ["", "KK", "", "W", ""], ["..B..", "....."] + ["....."] * 3),
    ], lid={"B": 0, "Y": 1, "R": 0, "K": 0, "W": 0}))


def refill():
    return balance(base("colored", 2, 2, "refill", 1, 1, 1, [
        board(1, ["", "Y", "", "", ""], ["B...."] + ["....."] * 4),
        board(2, ["", "", "KK", "", ""], [".Y...", "W...."] + ["....."] * 3),
    ], lid={"B": 2, "Y": 3, "R": 0, "K": 1, "W": 0}))


def over():
    """Equal scores: the complete wall row of seat 0 breaks the tie."""
    return balance(base("colored", 2, 5, "over", 0, 1, 0, [
        board(30, ["", "", "R", "", ""], ["BYRKW", "W....", ".....", ".....", "....."]),
        board(30, ["", "", "", "", ""], ["BYRK.", ".....", ".....", "R....", "....."]),
    ], ranks=[1, 2]))


def over_exhausted():
    """Four players, bag and lid empty (the deal ended the game): every W in the lines."""
    wall = ["BYRK.", ".BYRK", "K.BYR", "RK.BY", "YRK.B"]
    boards = [board(s, ["", "W", "", "", "WWWW"], wall) for s in (10, 12, 12, 5)]
    return base("colored", 4, 9, "over", 2, 1, 2, boards, ranks=[3, 1, 1, 4])


BASES = {"draft": draft, "tiling": tiling, "refill": refill, "over": over}
DELETE = object()


def edited(name, edits, rebalance=True):
    pos = BASES[name]()
    for path, value in edits.items():
        *parents, last = [int(p) if p.isdigit() else p for p in path.split("/")]
        target = pos
        for key in parents:
            target = target[key]
        if value is DELETE:
            del target[last]
        else:
            target[last] = value
    return balance(pos) if rebalance else pos


# --- valid positions ---------------------------------------------------------------------------

def test_spec_example_reads_back_unchanged():
    # order inside a factory or centre string carries no meaning: the reader sorts it B, Y, R, K, W
    expected = json.loads(SPEC_EXAMPLE)
    expected["factories"] = ["BBYR", "YKWW", "", "RRRR", "BYKW"]
    expected["center"] = "YR"
    for given in (SPEC_EXAMPLE, json.loads(SPEC_EXAMPLE), expected):
        result = read_position(given)
        assert result == expected
        assert list(result) == KEYS
        assert list(result["bag"]) == list(COLOURS)
        assert list(result["boards"][0]) == ["score", "lines", "wall", "floor"]


@pytest.mark.parametrize("make", [tiling, refill, over, over_exhausted], ids=lambda f: f.__name__)
def test_valid_positions_read_back_unchanged(make):
    pos = make()
    result = read_position(copy.deepcopy(pos))
    assert result == pos
    assert list(result) == KEYS + (["ranks"] if pos["phase"] == "over" else [])


def test_normalizes_case_and_order_and_returns_a_new_dict():
    pos = draft()
    pos["factories"] = ["yrbb", "wKwY", "", "rrrr", "WKYB"]
    pos["center"] = "yr"
    pos["marker"] = 0
    pos["boards"][0]["lines"][1] = "bb"
    pos["boards"][0]["floor"] = "1"
    pos["boards"][1]["wall"] = [".....", ".....", "..b..", ".....", "....."]
    pos["bag"]["B"] -= 1
    pos = {key: pos[key] for key in reversed(KEYS)}  # key order of the input carries no meaning
    given = copy.deepcopy(pos)
    result = read_position(pos)
    assert pos == given  # the input is left alone
    assert list(result) == KEYS
    assert result["factories"] == ["BBYR", "YKWW", "", "RRRR", "BYKW"]
    assert result["center"] == "YR"
    assert result["boards"][0]["lines"][1] == "BB"
    assert result["boards"][0]["floor"] == "1"
    assert result["boards"][1]["wall"][2] == "..B.."
    assert result["boards"][0]["lines"] is not pos["boards"][0]["lines"]


@pytest.mark.parametrize("name, edits", [
    ("draft", {"factories": ["BBRY", "KW", "", "", ""]}),        # partial deal and taken factories
    ("draft", {"factories": [""] * 5, "center": "K"}),            # only the center is left
    ("draft", {"marker": 1, "boards/1/floor": "BBBYYYR"}),        # marker kept beside a full floor
    ("draft", {"marker": 0, "boards/0/floor": "RR1Y"}),           # marker in the slot it took
    ("draft", {"boards/0/lines/4": "KKKKK"}),                     # complete lines wait for tiling
    ("tiling", {"marker": "center", "boards/0/floor": "BB"}),     # nobody took from the center
    ("refill", {"round": 1, "marker": "center", "to_move": 0, "opener": 0,
                "boards": [board(), board()], "lid": dict.fromkeys(COLOURS, 0)}),  # new game
], ids=["partial-factories", "center-only", "marker-beside-board", "marker-slot",
        "complete-line-in-draft", "tiling-marker-center", "new-game"])
def test_other_valid_positions(name, edits):
    read_position(edited(name, edits))


@pytest.mark.parametrize("scores, rows, expected", [
    ([10, 10, 5], [1, 1, 0], [1, 1, 3]),
    ([10, 10], [2, 1], [1, 2]),
    ([3, 7, 7, 9], [0, 0, 1, 0], [4, 3, 2, 1]),
    ([0, 0, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]),
])
def test_ranks(scores, rows, expected):
    assert ranks(scores, rows) == expected


# --- rejected positions ------------------------------------------------------------------------

@pytest.mark.parametrize("given, pattern", [
    ('{"format": "azul-position/1", ', r"^position: not JSON \(.* at line 1, column 31\)"),
    ("[1, 2]", r"^position: the top level must be a JSON object, got an array"),
    ('{"format": "azul-position/1", "round": 1, "round": 2}', r"^round: appears twice"),
    ([1, 2], r"^position: must be a dict or a JSON string, got an array"),
    ({"variant": "colored"}, r'^format: missing, a position starts with "format": "azul-position/1"'),
    ({"format": "azul-position/2"}, r'^format: must be "azul-position/1", got a string'),
    ("[" * 100000 + "]" * 100000, r"^position: nested too deeply to read"),
    ('{"format": "azul-position/1", "round": ' + "9" * 5000 + "}", r"^position: not read as JSON \(Exceeds"),
])
def test_rejects_what_is_not_a_position(given, pattern):
    with pytest.raises(InvalidPositionError, match=pattern):
        read_position(given)


CASES = [
    # keys
    ("draft", {"center": DELETE}, r"^center: missing, the format requires it"),
    ("draft", {"comment": "hi"}, r"^comment: unknown key"),
    ("draft", {"boards/1/floor": DELETE}, r"^boards\[1\]\.floor: missing"),
    ("draft", {"boards/0/extra": 1}, r"^boards\[0\]\.extra: unknown key"),
    ("draft", {"bag/W": DELETE}, r"^bag\.W: missing, the keys are B, Y, R, K, W"),
    ("draft", {"lid/G": 0}, r"^lid\.G: unknown key, the keys are B, Y, R, K, W"),
    # types: a boolean is not an integer
    ("draft", {"players": True}, r"^players: must be an integer, got a boolean \(true\)"),
    ("draft", {"round": "1"}, r'^round: must be an integer, got a string \("1"\)'),
    ("draft", {"round": 1.0}, r"^round: must be an integer, got a number \(1\.0\)"),
    ("draft", {"to_move": False}, r"^to_move: must be an integer, got a boolean"),
    ("draft", {"marker": True}, r"^marker: must be an integer, got a boolean"),
    ("draft", {"bag/K": None}, r"^bag\.K: must be an integer, got null"),
    ("draft", {"lid": [0, 0, 0, 0, 0]}, r"^lid: must be an object with keys B, Y, R, K, W"),
    ("draft", {"boards/0/score": True}, r"^boards\[0\]\.score: must be an integer, got a boolean"),
    ("draft", {"factories/0": 5}, r"^factories\[0\]: must be a string, got an integer"),
    ("draft", {"factories": "BBRY"}, r"^factories: must be an array, got a string"),
    ("draft", {"boards/1/lines": ""}, r"^boards\[1\]\.lines: must be an array"),
    ("draft", {"boards/0": []}, r"^boards\[0\]: must be an object, got an array"),
    # single fields
    ("draft", {"variant": "grey"}, r'^variant: a string \("grey"\) is not one of colored, gray'),
    ("draft", {"players": 5}, r"^players: 5, a game has 2 to 4 players"),
    ("draft", {"players": 1}, r"^players: 1, a game has 2 to 4 players"),
    ("draft", {"round": 0}, r"^round: 0, rounds count from 1"),
    ("draft", {"phase": "play"}, r"^phase: .* is not one of draft, tiling, refill, over"),
    ("refill", {"phase": "tiling"}, r'^phase: "tiling" exists only in the gray variant'),
    ("draft", {"to_move": 2}, r"^to_move: 2 is not a seat of a 2-player game \(seats 0\.\.1\)"),
    ("draft", {"opener": -1}, r"^opener: -1 is not a seat of a 2-player game"),
    ("draft", {"factories": ["BBRY"] * 6}, r"^factories: 6 factories, a 2-player game has 5"),
    ("draft", {"players": 3}, r"^factories: 5 factories, a 3-player game has 7"),
    ("draft", {"factories/0": "BBRYK"}, r"^factories\[0\]: holds 5 tiles, a factory holds at most 4"),
    ("draft", {"factories/1": "KWXY"}, r"^factories\[1\]: 'X' is not a tile letter \(B, Y, R, K, W\)"),
    ("draft", {"center": "R1Y"}, r"^center: '1' is not a tile letter \(B, Y, R, K, W\)"),
    ("draft", {"marker": "centre"}, r'^marker: a string \("centre"\) is neither "center" nor a seat'),
    ("draft", {"marker": 2}, r"^marker: 2 is not a seat of a 2-player game"),
    ("draft", {"lid/R": -1}, r"^lid\.R: -1, a tile count cannot be negative"),
    ("draft", {"boards": [board()] * 3}, r"^boards: 3 boards, a 2-player game has 2"),
    ("draft", {"boards/1/score": -2}, r"^boards\[1\]\.score: -2, a score never falls below 0"),
    # board: lines, wall, floor
    ("draft", {"boards/0/lines": ["", "BB", "", ""]}, r"^boards\[0\]\.lines: 4 lines, a board has 5"),
    ("draft", {"boards/1/lines/2": "RRRR"}, r"^boards\[1\]\.lines\[2\]: holds 4 tiles, line 3 holds at most 3"),
    ("draft", {"boards/0/lines/1": "BY"}, r"^boards\[0\]\.lines\[1\]: mixes colours B and Y, a line holds one colour"),
    ("draft", {"boards/0/lines/3": "1"}, r"^boards\[0\]\.lines\[3\]: '1' is not a tile letter"),
    ("draft", {"boards/0/wall/1": ".B..."},
     r"^boards\[0\]\.lines\[1\]: colour B is already in wall row 2, a line cannot take"),
    ("tiling", {"boards/1/wall/1": "..K.."},
     r"^boards\[1\]\.lines\[1\]: colour K is already in wall row 2"),
    ("draft", {"boards/0/wall": ["....."] * 4}, r"^boards\[0\]\.wall: 4 rows, a wall has 5"),
    ("draft", {"boards/0/wall/0": "...."}, r"^boards\[0\]\.wall\[0\]: 4 squares, a wall row has 5"),
    ("draft", {"boards/0/wall/4": "..x.."}, r"^boards\[0\]\.wall\[4\]: 'x' is not a tile letter .*'\.'"),
    ("draft", {"boards/0/wall/2": "R...."},
     r"^boards\[0\]\.wall\[2\]: R in column 1 is off the printed pattern \(row 3 has R in column 5\)"),
    ("tiling", {"boards/0/wall/3": "B..B."}, r"^boards\[0\]\.wall\[3\]: B appears twice in row 4"),
    ("tiling", {"boards/0/wall/2": "Y...."},
     r"^boards\[0\]\.wall\[2\]: Y in column 1 repeats the Y of row 1, a colour fits once in a column"),
    ("draft", {"boards/1/floor": "BBBBBBBB"}, r"^boards\[1\]\.floor: holds 8 pieces, a floor has 7 slots"),
    ("draft", {"boards/1/floor": "B2"}, r"^boards\[1\]\.floor: '2' is not a tile letter .* or the marker '1'"),
    ("draft", {"marker": 0, "boards/0/floor": "1B1"}, r"^boards\[0\]\.floor: holds the marker '1' 2 times"),
    # the marker
    ("draft", {"marker": 0, "boards/0/floor": "1", "boards/1/floor": "1"},
     r"^boards\[1\]\.floor: holds the marker '1', but boards\[0\]\.floor holds it too"),
    ("draft", {"boards/0/floor": "R1"}, r'^boards\[0\]\.floor: holds the marker \'1\', but marker is "center"'),
    ("draft", {"marker": 0, "boards/1/floor": "1"}, r"^boards\[1\]\.floor: holds the marker '1', but marker is seat 0"),
    ("draft", {"marker": 1, "boards/1/floor": "BBBYYY"},
     r"^boards\[1\]\.floor: marker names seat 1, so this floor must hold the marker '1' or be full"),
    ("tiling", {"boards/0/floor": "BB"}, r"^boards\[0\]\.floor: marker names seat 0"),
    ("refill", {"boards/1/floor": "B"}, r"^boards\[1\]\.floor: must be empty in phase refill"),
    ("over", {"boards/0/floor": "1"}, r"^boards\[0\]\.floor: must be empty in phase over"),
    # phase draft
    ("draft", {"factories": [""] * 5, "center": ""}, r"^factories: no tile in factories or center"),
    ("draft", {"boards/1/wall/0": "BYRKW"}, r"^boards\[1\]\.wall\[0\]: row 1 is complete, the game would be over"),
    # phase tiling
    ("tiling", {"factories/2": "BBRY"}, r"^factories\[2\]: holds BBYR, factories are empty in phase tiling"),
    ("tiling", {"center": "k"}, r"^center: holds K, the center is empty in phase tiling"),
    ("tiling", {"boards/0/lines/0": "B"},
     r"^boards\[0\]\.lines\[0\]: line 1 is complete, but seat 1 \(to_move\) tiles after this seat"),
    ("tiling", {"boards/1/lines/1": "K"},
     r"^boards\[1\]\.lines: seat 1 is to move in phase tiling but has no complete line"),
    ("tiling", {"boards/1/wall": ["K.B..", "....Y", ".K...", "..K..", "...K."]},
     r"^boards\[1\]\.lines\[1\]: topmost complete line, its K has no legal square in wall row 2"),
    ("tiling", {"to_move": 0, "boards/0/lines/0": "B", "boards/1/wall/0": "YBRKW"},
     r"^boards\[1\]\.wall\[0\]: row 1 is complete, but this seat tiles after seat 0"),
    # phase refill
    ("refill", {"center": "B"}, r"^center: holds B, the center is empty in phase refill"),
    ("refill", {"boards/0/lines/0": "Y"},
     r"^boards\[0\]\.lines\[0\]: line 1 is complete, complete lines are tiled before a refill"),
    ("refill", {"boards/1/wall/1": "WBYRK"}, r"^boards\[1\]\.wall\[1\]: row 2 is complete, the game would be over"),
    ("refill", {"opener": 0}, r"^opener: 0, in phase refill opener equals to_move \(1\)"),
    ("refill", {"marker": 0}, r"^marker: 0, in phase refill the marker is with to_move \(1\)"),
    ("refill", {"marker": "center"}, r'^marker: "center", in phase refill the marker is with to_move'),
    # phase over
    ("over", {"factories/4": "W"}, r"^factories\[4\]: holds W, factories are empty in phase over"),
    ("over", {"boards/1/lines/2": "RRR"}, r"^boards\[1\]\.lines\[2\]: line 3 is complete, complete lines are tiled"),
    ("over", {"marker": 1}, r"^marker: 1, in phase over marker and to_move name the next opener \(0\)"),
    ("over", {"ranks": DELETE}, r"^ranks: missing, a position in phase over gives every seat's rank"),
    ("draft", {"ranks": [1, 2]}, r"^ranks: only a position in phase over has ranks, this one is in phase draft"),
    ("over", {"ranks": [2, 1]}, r"^ranks: \[2, 1\] does not follow from the scores .* the ranks are \[1, 2\]"),
    ("over", {"ranks": [1, 1]}, r"^ranks: \[1, 1\] does not follow"),
    ("over", {"boards/1/score": 31}, r"^ranks: \[1, 2\] does not follow .* the ranks are \[2, 1\]"),
    ("over", {"ranks": [1]}, r"^ranks: 1 ranks, a 2-player game has 2"),
    ("over", {"ranks": [True, 2]}, r"^ranks\[0\]: must be an integer, got a boolean"),
    # numbers beyond what the core's 32-bit fields hold (docs/positions.md, ranges)
    ("draft", {"boards/0/score": 2**31}, r"^boards\[0\]\.score: 2147483648 is out of range, a score is 0\.\.1000000"),
    ("draft", {"round": 2**31}, r"^round: 2147483648 is out of range, a round is 1\.\.1000000"),
    ("draft", {"players": 10**400}, r"^players: an integer of about 401 digits is far out of range"),
    ("draft", {"boards/1/score": -2**70}, r"^boards\[1\]\.score: an integer of about 22 digits is far out of range"),
]


@pytest.mark.parametrize("name, edits, pattern", CASES, ids=[c[2][1:40] for c in CASES])
def test_rejects(name, edits, pattern):
    pos = edited(name, edits)
    with pytest.raises(InvalidPositionError, match=pattern):
        read_position(pos)


def test_message_as_json_string_too():
    text = json.dumps(edited("draft", {"boards/1/lines/2": "RRRR"}))
    with pytest.raises(InvalidPositionError, match=r"^boards\[1\]\.lines\[2\]: holds 4 tiles"):
        read_position(text)


@pytest.mark.parametrize("edits, message", [
    ({"bag/B": 16}, "tiles: colour B totals 21, every colour must total 20 "
                    "(bag 16, lid 0, factories 3, center 0, lines 2, walls 0, floors 0)"),
    ({"bag/R": 13, "lid/R": 0}, "tiles: colour R totals 19, every colour must total 20 "
                                "(bag 13, lid 0, factories 5, center 1, lines 0, walls 0, floors 0)"),
    ({"marker": 0, "boards/0/floor": "1K"}, "tiles: colour K totals 21, every colour must total 20 "
                                            "(bag 18, lid 0, factories 2, center 0, lines 0, walls 0, floors 1)"),
])
def test_tile_conservation(edits, message):
    pos = edited("draft", edits, rebalance=False)
    with pytest.raises(InvalidPositionError, match=re.escape(message)):
        read_position(pos)


def test_the_marker_is_not_a_tile():
    read_position(edited("draft", {"marker": 0, "boards/0/floor": "1"}, rebalance=False))


def test_the_error_is_a_value_error():
    with pytest.raises(ValueError):
        read_position("not json")
