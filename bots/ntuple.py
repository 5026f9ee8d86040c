"""The n-tuple value (``mcts:evaluator=value`` with an ``azul-ntuple/1`` model): its tuples, the
readable reference of its feature indices, and the check of its file.

A seat's view of a round's end (after the tiling, before the deal) is a few small patterns, each
an index into a table of float32 weights; the view's value is tanh of the sum of the entries its
patterns pick, its seat's value (1 + that) / 2. At 2 players the two views make one zero-sum
value (the mean of one seat's and one minus the other's), as the network's do; at 3 and 4 players
each seat has its own view, the weights shared by every seat. The compiled evaluator
(``NTupleValue`` in bots/_evaluators.pyx) computes the same indices from the core's ``State`` and
sums its tables without the GIL; ``features`` here computes them from engine.rl's observation
(docs/rl.md's layout), which the trainer (learn/ntuple.py) reads from the position shards, and a
test checks that the two agree.

The tables (``TUPLES``: name and shape; an index is the C-order position in that shape):

========== ============ ===============================================================
name       shape        indexed by
========== ============ ===============================================================
bias       1            always 0
own_row    5, 32, 26    the seat's wall row; its occupied squares (bit c: column c); its
                        pattern line (0 empty, else 1 + 5 * colour + tiles - 1)
own_column 5, 32        the seat's wall column; its occupied squares (bit r: row r)
own_colour 5, 6         a colour; its tiles on the seat's wall
other_*    as own_*     the same of each other seat's board, summed over the others
score      8, 32        the round; the seat's score // 4 (at most 31)
margin     8, 41        the round; (margin + 40) // 2, the margin (the seat's score less
                        the best other seat's) held to -40..40
marker     8, 5         the round; the next round's first player counted from the seat
                        (0: the seat itself; 4: nobody)
race       8, 5, 5      the round; the most tiles in one wall row of the seat (at most 4);
                        the same, the most of the other seats'
========== ============ ===============================================================

"The round" is the position's round number (the round about to be dealt, 2 after the first
round's end) less 2, held to 0..7. Wall squares are counted occupied whatever their colour, so
the gray wall's boards are read the same way.

The file is the value file's container (bots/value_file.py: ``AZULVAL1``, a JSON header, the
float32 arrays) with ``"format": "azul-ntuple/1"`` and one array per tuple, named and shaped as
``TUPLES`` says, in that order; ``check_tables`` refuses any other set of arrays.
"""
from __future__ import annotations

import numpy as np

FORMAT = "azul-ntuple/1"
ROUNDS = 8          # round buckets
LINE_STATES = 26    # a pattern line: empty, or one of 5 colours with 1 to 5 tiles
MARGIN = 40         # margins beyond +-40 count as +-40

TUPLES: dict[str, tuple[int, ...]] = {
    "bias": (1,),
    "own_row": (5, 32, LINE_STATES),
    "own_column": (5, 32),
    "own_colour": (5, 6),
    "other_row": (5, 32, LINE_STATES),
    "other_column": (5, 32),
    "other_colour": (5, 6),
    "score": (ROUNDS, 32),
    "margin": (ROUNDS, MARGIN + 1),
    "marker": (ROUNDS, 5),
    "race": (ROUNDS, 5, 5),
}
OFFSETS: dict[str, int] = {}
SIZE = 0            # the weights of all tables, one after the other in TUPLES' order
for _name, _shape in TUPLES.items():
    OFFSETS[_name] = SIZE
    SIZE += int(np.prod(_shape))


def feature_count(players: int) -> int:
    """How many entries one seat's view sums: the bias, 15 per board and 4 of the whole position."""
    return 1 + 15 * players + 4


def _board_layout(players: int) -> tuple[int, int, int]:
    """Where engine.rl's observation (docs/rl.md) keeps the marker, the round and the first board."""
    marker = (2 * players + 1) * 5 + 5           # after the factories and the centre
    rnd = marker + (players + 1) + players + 10  # after the marker, the seat to move, bag and lid
    return marker, rnd, rnd + 2


BOARD = 25 + 125 + 6 + 1    # pattern lines, wall, floor, score


def feature_matrix(x: np.ndarray, players: int) -> np.ndarray:
    """The table indices (into the weights of all tables, ``OFFSETS``) each row of ``x`` picks, x
    being engine.rl's observations of round ends from the valued seat: shape (rows,
    feature_count(players)), in the compiled evaluator's order: the bias, the seat's rows, columns
    and colours, those of each other seat in seat order after it, then score, margin, marker, race."""
    x = np.asarray(x, np.float32)
    if x.ndim != 2:
        raise ValueError(f"feature_matrix: a 2-D array of observations, not shape {x.shape}")
    marker_at, round_at, board_at = _board_layout(players)
    if x.shape[1] != board_at + players * BOARD:
        raise ValueError(f"feature_matrix: rows of {x.shape[1]} floats; a {players}-player observation "
                         f"has {board_at + players * BOARD}")
    rows = len(x)
    rnd = np.clip(x[:, round_at].astype(np.int64) - 2, 0, ROUNDS - 1)
    columns = [np.full(rows, OFFSETS["bias"], np.int64)]
    scores, fullest = [], []
    for rel in range(players):             # the seat's own board first, then the others
        board = x[:, board_at + rel * BOARD: board_at + (rel + 1) * BOARD]
        lines = board[:, :25].reshape(rows, 5, 5).astype(np.int64)       # [row, colour] = tiles
        wall = board[:, 25:150].reshape(rows, 5, 5, 5) > 0               # [row, column, colour]
        occupied = wall.any(3)                                           # [row, column]
        tiles = lines.sum(2)
        colour = lines.argmax(2)
        line = np.where(tiles > 0, 1 + 5 * colour + np.minimum(tiles, 5) - 1, 0)
        bits = 1 << np.arange(5)
        row_mask = (occupied * bits[None, None, :]).sum(2)               # bit c: column c
        col_mask = (occupied * bits[None, :, None]).sum(1)               # bit r: row r
        counts = np.minimum(wall.sum((1, 2)), 5)                         # per colour
        who = "own" if rel == 0 else "other"
        for r in range(5):
            columns.append(OFFSETS[f"{who}_row"] + (r * 32 + row_mask[:, r]) * LINE_STATES + line[:, r])
        for c in range(5):
            columns.append(OFFSETS[f"{who}_column"] + c * 32 + col_mask[:, c])
        for c in range(5):
            columns.append(OFFSETS[f"{who}_colour"] + c * 6 + counts[:, c])
        scores.append(board[:, BOARD - 1].astype(np.int64))
        fullest.append(np.minimum(occupied.sum(2).max(1), 4))
    own, best = scores[0], np.max(scores[1:], axis=0)
    margin = np.clip(own - best, -MARGIN, MARGIN)
    holder = x[:, marker_at:marker_at + players + 1].argmax(1)            # 0: nobody, else 1 + relative seat
    marker = np.where(holder == 0, 4, holder - 1)
    columns.append(OFFSETS["score"] + rnd * 32 + np.minimum(own // 4, 31))
    columns.append(OFFSETS["margin"] + rnd * (MARGIN + 1) + (margin + MARGIN) // 2)
    columns.append(OFFSETS["marker"] + rnd * 5 + marker)
    columns.append(OFFSETS["race"] + (rnd * 5 + fullest[0]) * 5 + np.max(fullest[1:], axis=0))
    return np.stack(columns, 1).astype(np.int32)


def features(observation: np.ndarray, players: int) -> list[int]:
    """The table indices of one observation (``feature_matrix`` of one row)."""
    return feature_matrix(np.asarray(observation)[None, :], players)[0].tolist()


def flat_weights(arrays: dict[str, np.ndarray]) -> np.ndarray:
    """The tables of a file's arrays as one float32 vector, in ``TUPLES``' order (``OFFSETS``)."""
    return np.concatenate([np.asarray(arrays[name], np.float32).ravel() for name in TUPLES])


def check_tables(header: dict, arrays: dict[str, np.ndarray], where: str) -> None:
    """Refuse (a ValueError naming ``where``) an ``azul-ntuple/1`` file whose arrays are not this
    version's tables or whose player count is not 2 to 4."""
    got = {name: list(a.shape) for name, a in arrays.items()}
    want = {name: list(shape) for name, shape in TUPLES.items()}
    if list(got.items()) != list(want.items()):
        wrong = [f"{k} {got.get(k, 'missing')} (not {v})" for k, v in want.items() if got.get(k) != v]
        extra = [k for k in got if k not in want]
        raise ValueError(f"{where}: not the tables of {FORMAT}: "
                         + "; ".join(wrong + [f"{k}: no such table" for k in extra]
                                     or [f"tables in the order {', '.join(got)}, not {', '.join(want)}"]))
    if header.get("players") not in (2, 3, 4):
        raise ValueError(f"{where}: {header.get('players')!r} players: a model is for 2 to 4 players")
