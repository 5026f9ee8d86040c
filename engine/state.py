"""The public GameState: the compiled core behind a checked, documented Python API (SPEC section 4)."""
from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from ._core import ERRORS, Core
from .errors import IllegalMoveError, InvalidPositionError
from .notation import COLOUR_NAMES, COLOURS, MOVES, Move
from .position import read_position
from .rules import OVER, PHASES, REFILL, VARIANTS, complete_rows, ranks

MARKER_SLOT = 5
EMPTY = 255


class Played(NamedTuple):
    """What one move did (``GameState.step``): who moved, and the tiles it moved.

    ``taken`` is every tile of ``colour`` in the source (None for a gray tiling move, whose
    ``colour`` is its pattern line's); ``to_floor`` counts the tiles that did not fit the pattern
    line, those past a full floor included; ``took_marker``: this move took the starting marker
    from the centre. ``round_over``: the move closed its round (the state is in refill or over,
    and ``round_scoring()`` tells what the round scored).
    """

    seat: int
    move: Move
    colour: str
    taken: int | None
    to_floor: int
    took_marker: bool
    round_over: bool


class RoundScore(NamedTuple):
    """What the round that closed last scored for one seat (``GameState.round_scoring``)."""

    wall_points: int  # points of the tiles placed on the wall
    floor_penalty: int  # what the floor took off the score (never below 0)
    end_bonus: int  # the end-of-game bonus (0 unless the game is over)


class GameState:
    """One Azul position. Build it with ``new_game`` or ``GameState.from_json``."""

    __slots__ = ("_core",)

    def __init__(self, core: Core):
        self._core = core

    # ------------------------------------------------------------ reading the position
    @property
    def phase(self) -> str:
        return PHASES[self._core.phase]

    @property
    def players(self) -> int:
        return self._core.players

    @property
    def variant(self) -> str:
        return VARIANTS[self._core.gray]

    @property
    def round(self) -> int:
        return self._core.round

    @property
    def to_move(self) -> int:
        return self._core.to_move

    @property
    def scores(self) -> list[int]:
        return self._core.scores()

    @property
    def is_over(self) -> bool:
        return self._core.phase == OVER

    def legal_move_count(self) -> int:
        """How many legal moves there are (``len(legal_moves())`` without building the list)."""
        return self._core.legal_count()

    def round_scoring(self) -> list[RoundScore]:
        """Per seat, what the round that closed last scored: wall points, floor penalty, end bonus.

        Right after a round closes (phase refill or over) it describes that round; during a round
        the floor penalty is still 0 and the wall points count the tiles placed so far (gray
        tiling). A position read by ``from_json`` starts from zero.
        """
        return [RoundScore(*x) for x in self._core.round_scoring()]

    def legal_moves(self) -> list[Move]:
        """The legal moves in notation order (empty in phases refill and over)."""
        return self._core.legal_moves(MOVES)

    def clone(self) -> GameState:
        return GameState(self._core.clone())

    def __reduce__(self):
        return (GameState, (self._core,))

    def __copy__(self) -> GameState:
        return self.clone()

    def __deepcopy__(self, memo) -> GameState:
        return self.clone()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self.to_json() == other.to_json()

    __hash__ = None  # a position changes as it is played

    def __repr__(self) -> str:
        j = self.to_json()
        return (f"<GameState {j['players']}p {j['variant']} round {j['round']} {j['phase']}, "
                f"seat {j['to_move']} to move, scores {self.scores}>")

    # ------------------------------------------------------------ changing it
    def play(self, move: Move | str) -> None:
        """Apply one move; raise IllegalMoveError (and change nothing) if the rules forbid it."""
        move = move if type(move) is Move else Move.parse(move)
        err = self._core.play(move.code)
        if err:
            raise IllegalMoveError(f"illegal move {move}: {self._reason(ERRORS.get(err, err), move)}")

    def step(self, move: Move | str) -> Played:
        """Apply one move like ``play`` and return what it did (a ``Played``)."""
        move = move if type(move) is Move else Move.parse(move)
        err, seat, colour, taken, to_floor, marker = self._core.play_facts(move.code)
        if err:
            raise IllegalMoveError(f"illegal move {move}: {self._reason(ERRORS.get(err, err), move)}")
        return Played(seat, move, COLOURS[colour], taken, to_floor, marker, self._core.phase >= REFILL)

    def deal(self, seed: int | None = None, factories: list[str] | None = None) -> None:
        """Deal the next round: drawn from ``seed``, or the given factory strings (checked)."""
        if (seed is None) == (factories is None):
            raise ValueError("deal: give exactly one of seed= or factories=")
        if self.phase != "refill":
            raise IllegalMoveError(f"deal: not the refill phase (the phase is {self.phase})")
        if seed is not None:
            if not isinstance(seed, int) or isinstance(seed, bool):
                raise ValueError(f"deal: seed must be an integer, not {seed!r}")
            self._core.deal_seed(seed)
            return
        raw = self._core.export()
        counts, bag, lid = forced_deal(factories, raw["bag"], raw["lid"], len(raw["factories"]))
        self._core.deal_forced(counts, bag, lid)

    # ------------------------------------------------------------ JSON
    def to_json(self) -> dict:
        """The position as an ``azul-position/1`` dict."""
        raw = self._core.export()
        boards = [_board_json(b) for b in raw["boards"]]
        obj = {
            "format": "azul-position/1",
            "variant": "gray" if raw["gray"] else "colored",
            "players": raw["players"],
            "round": raw["round"],
            "phase": PHASES[raw["phase"]],
            "to_move": raw["to_move"],
            "opener": raw["opener"],
            "factories": [_letters(f) for f in raw["factories"]],
            "center": _letters(raw["center"]),
            "marker": "center" if raw["marker"] is None else raw["marker"],
            "bag": dict(zip(COLOURS, raw["bag"])),
            "lid": dict(zip(COLOURS, raw["lid"])),
            "boards": boards,
        }
        if obj["phase"] == "over":
            obj["ranks"] = ranks([b["score"] for b in boards], [complete_rows(b["wall"]) for b in boards])
        return obj

    @classmethod
    def from_json(cls, obj: dict | str) -> GameState:
        """Read a position (dict or JSON text); raise InvalidPositionError naming what is wrong."""
        pos = read_position(obj)
        core = Core.load(_raw(pos))
        if pos["phase"] == "over" and core.can_still_end() and not any(
                "." not in row for b in pos["boards"] for row in b["wall"]):
            raise InvalidPositionError(
                "phase: over, but no board has a complete wall row and the game could still end "
                "(a game ends after a complete row, an empty deal, or when no row can ever be completed)")
        return cls(core)

    # ------------------------------------------------------------ messages
    def _reason(self, why: str, move: Move) -> str:
        raw = self._core.export()
        seat = raw["to_move"]
        lines = raw["boards"][seat][1]
        phase = PHASES[raw["phase"]]
        colour = COLOUR_NAMES[COLOURS.index(move.colour)] if move.colour else None
        if why == "not_draft":
            due = ", a deal is due" if phase == "refill" else ""
            return f"not the drafting phase (the phase is {phase}{due})"
        if why == "no_factory":
            n = len(raw["factories"])
            return f"factory {move.factory} does not exist: a {raw['players']}-player game has {n} factories"
        if why == "no_colour":
            where = "the centre" if move.from_center else f"factory {move.factory}"
            return f"{where} has no {colour}"
        if why == "line_full":
            return f"line {move.line} is full"
        if why == "line_other":
            held = COLOUR_NAMES[lines[move.line - 1][0]]
            return f"line {move.line} holds {held}"
        if why == "wall_row":
            return f"wall row {move.line} already has {colour}"
        if why == "not_tiling":
            return f"not the tiling phase (the phase is {phase}; tiling moves exist only on the gray wall)"
        if why == "wrong_line":
            nxt = next(k for k in range(5) if lines[k][1] == k + 1) + 1
            return f"seat {seat} tiles line {nxt} next, not line {move.line}"
        if why == "square_taken":
            return f"wall row {move.line} column {move.column} is already filled"
        if why == "column_has":
            held = COLOUR_NAMES[lines[move.line - 1][0]]
            return f"wall column {move.column} already has {held}"
        return f"unknown error {why}"


def new_game(players: int = 2, variant: str = "colored", seed: int | None = None,
             opener: int = 0) -> GameState:
    """A new game; with a seed, round 1 is dealt from it, else phase is refill.

    ``opener`` is the seat that opens round 1 (seat 0 unless given; game two of a series opens
    with the seat after game one's opener).
    """
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 4:
        raise ValueError(f"players must be 2, 3 or 4, not {players!r}")
    if variant not in VARIANTS:
        raise ValueError(f"variant must be 'colored' or 'gray', not {variant!r}")
    if not isinstance(opener, int) or isinstance(opener, bool) or not 0 <= opener < players:
        raise ValueError(f"opener must be a seat from 0 to {players - 1}, not {opener!r}")
    state = GameState(Core.new(players, variant == "gray"))
    if opener:  # the same empty table, another seat to open: through the position format
        start = state.to_json()
        start["to_move"] = start["opener"] = opener
        state = GameState.from_json(start)
    if seed is not None:
        state.deal(seed=seed)
    return state


def forced_deal(factories, bag: list[int], lid: list[int], n_factories: int):
    """Check a forced deal against bag and lid; return the factory counts and the bag and lid after.

    The deal must be one that drawing could produce: factories filled in order, four each, from
    the bag; when the bag runs out the whole lid moves into it and drawing goes on.
    """
    if not isinstance(factories, (list, tuple)) or not all(isinstance(f, str) for f in factories):
        raise ValueError("deal: factories must be a list of strings like 'BBRY'")
    if len(factories) != n_factories:
        raise ValueError(f"deal: {len(factories)} factories given, this game has {n_factories}")
    counts = []
    for i, text in enumerate(factories, 1):
        bad = set(text.upper()) - set(COLOURS)
        if bad:
            raise ValueError(f"deal: factory {i} {text!r} has {''.join(sorted(bad))}, not a colour of {COLOURS}")
        c = Counter(text.upper())
        counts.append([c[x] for x in COLOURS])
    in_bag = sum(bag)
    need = min(4 * n_factories, in_bag + sum(lid))
    sizes = [sum(c) for c in counts]
    expected = [max(0, min(4, need - 4 * i)) for i in range(n_factories)]
    if sizes != expected:
        raise ValueError(f"deal: factory sizes {sizes}, drawing gives {expected} "
                         f"(bag {in_bag}, lid {sum(lid)}: four per factory, in order, while tiles last)")
    dealt = [sum(c[k] for c in counts) for k in range(5)]
    if in_bag >= need:
        for k in range(5):
            if dealt[k] > bag[k]:
                raise ValueError(f"deal: {dealt[k]} {COLOUR_NAMES[k]} dealt, the bag holds {bag[k]} "
                                 "(the lid is used only once the bag is empty)")
        return counts, [bag[k] - dealt[k] for k in range(5)], list(lid)
    # The first in_bag draws empty the bag: factories before `split` come from the bag alone,
    # factory `split` holds the rest of the bag, and everything after comes from the lid.
    split = in_bag // 4
    early = [sum(c[k] for c in counts[:split]) for k in range(5)]
    for k in range(5):
        rest = bag[k] - early[k]
        if rest < 0 or rest > counts[split][k]:
            raise ValueError(f"deal: the bag's {bag[k]} {COLOUR_NAMES[k]} must be drawn first, filling "
                             f"factories 1 to {split + 1} before the lid is recycled")
        if dealt[k] - bag[k] > lid[k]:
            raise ValueError(f"deal: {dealt[k]} {COLOUR_NAMES[k]} dealt, bag and lid hold {bag[k] + lid[k]}")
    return counts, [lid[k] - (dealt[k] - bag[k]) for k in range(5)], [0] * 5


def _letters(counts) -> str:
    return "".join(COLOURS[c] * n for c, n in enumerate(counts))


def _board_json(board) -> dict:
    score, lines, cells, floor = board
    return {
        "score": score,
        "lines": [COLOURS[c] * n if n else "" for c, n in lines],
        "wall": ["".join("." if x == EMPTY else COLOURS[x] for x in cells[r * 5:r * 5 + 5]) for r in range(5)],
        "floor": "".join("1" if x == MARKER_SLOT else COLOURS[x] for x in floor),
    }


def _counts(text: str) -> list[int]:
    return [text.count(c) for c in COLOURS]


def _raw(pos: dict) -> dict:
    """A validated position dict in the shape Core.load reads."""
    boards = []
    for b in pos["boards"]:
        lines = [(COLOURS.index(line[0]) if line else 0, len(line)) for line in b["lines"]]
        cells = [EMPTY if x == "." else COLOURS.index(x) for row in b["wall"] for x in row]
        floor = [MARKER_SLOT if x == "1" else COLOURS.index(x) for x in b["floor"]]
        boards.append((b["score"], lines, cells, floor))
    return {
        "players": pos["players"], "gray": pos["variant"] == "gray", "phase": PHASES.index(pos["phase"]),
        "round": pos["round"], "to_move": pos["to_move"], "opener": pos["opener"],
        "marker": None if pos["marker"] == "center" else pos["marker"],
        "factories": [_counts(f) for f in pos["factories"]], "center": _counts(pos["center"]),
        "bag": [pos["bag"][c] for c in COLOURS], "lid": [pos["lid"][c] for c in COLOURS],
        "boards": boards,
    }
