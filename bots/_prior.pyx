# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The policy prior's move features in C (issue 46; docs/bots.md, "The policy prior"): what a
draft move takes, where it puts it and what it leaves, as ``NFEATURES`` numbers a move, computed
without the GIL from the core's state; and the prior itself, a softmax over the legal moves of a
linear score of those features (bots/prior.py holds the weights, their model-file section and a
plain-Python reference of every feature, which the tests hold the compiled ones to).

The features of a draft move (source, colour c, destination d) of the seat to move, in order
(``FEATURES``): it takes from the centre; it takes the marker; the tiles taken; it goes to the
floor; the tiles placed in the pattern line; the tiles that overflow (all of them to the floor);
it completes the line; greedy's value of the move (its change in the round's projected points:
bots/_policies.pyx); the line's length (1 to 5; 0 for the floor); the tiles left in the centre
after it, for the next seat; and, for a pattern line, the tiles already in the wall column c
would go to in that row (the coloured wall; 0 on the gray one), the tiles of colour c already on
the wall, the tiles already in that wall row, and whether the line already held tiles. A tiling
move's features are all 0 (the prior is uniform over a gray wall's tiling choices).
"""
from libc.math cimport exp

from engine._core cimport (Core, State, Board, Rng, CENTRE, FLOOR, NO_SEAT, DRAFT, TILING, TILING_BASE, MAX_MOVES,
                           POPCOUNT, gen_moves, colour_column, rng_below)
from bots._policies cimport draft_values, greedy_move

import numpy as np

FEATURES = ("center", "marker", "taken", "floor", "placed", "overflow", "completes", "greedy", "line",
            "left_in_center", "column_tiles", "colour_tiles", "row_tiles", "extends")
assert len(FEATURES) == NFEATURES


cdef void move_features(const State* s, const int* moves, int n, float* out) noexcept nogil:
    """``NFEATURES`` numbers for each of ``moves[:n]`` (legal moves of the seat to move), row by row."""
    cdef int values[MAX_MOVES]
    cdef const Board* b = &s.boards[s.to_move]
    cdef int i, k, code, src, c, d, tiles, put, centre = 0, source_total
    cdef float* f
    draft_values(s, moves, n, values)
    for c in range(5):
        centre += s.source[CENTRE][c]
    for i in range(n):
        f = out + i * NFEATURES
        for k in range(NFEATURES):
            f[k] = 0
        code = moves[i]
        if code >= TILING_BASE:
            continue
        src, c, d = code // 30, (code // 6) % 5, code % 6
        tiles = s.source[src][c]
        put = 0
        if d != FLOOR:
            put = d + 1 - b.line_count[d]
            if put > tiles:
                put = tiles
        source_total = 0
        for k in range(5):
            source_total += s.source[src][k]
        f[0] = src == CENTRE
        f[1] = src == CENTRE and s.marker == NO_SEAT
        f[2] = tiles
        f[3] = d == FLOOR
        f[4] = put
        f[5] = tiles - put
        f[6] = d != FLOOR and b.line_count[d] + put == d + 1
        f[7] = values[i]
        f[9] = centre - tiles if src == CENTRE else centre + source_total - tiles
        if d != FLOOR:
            f[8] = d + 1
            if not s.gray:
                f[10] = POPCOUNT[b.col_mask[colour_column(d, c)]]
            f[11] = b.colour_count[c]
            f[12] = POPCOUNT[b.row_mask[d]]
            f[13] = b.line_count[d] > 0


cdef void move_scores(const State* s, const int* moves, int n, const double* weights, double* out) noexcept nogil:
    """weights . features of each of ``moves[:n]``: the prior's scores before its softmax."""
    cdef float feats[MAX_MOVES * NFEATURES]
    cdef int i, k
    cdef double score
    move_features(s, moves, n, feats)
    for i in range(n):
        score = 0
        for k in range(NFEATURES):
            score += weights[k] * feats[i * NFEATURES + k]
        out[i] = score


cdef void prior_of(const State* s, const int* moves, int n, const double* weights, double* out) noexcept nogil:
    """The prior of each of ``moves[:n]``: softmax over them of weights . features (sums to 1)."""
    cdef int i
    cdef double top = -1e300, total = 0
    move_scores(s, moves, n, weights, out)
    for i in range(n):
        if out[i] > top:
            top = out[i]
    for i in range(n):
        out[i] = exp(out[i] - top)
        total += out[i]
    for i in range(n):
        out[i] /= total


cdef int prior_move(const State* s, Rng* rng, const double* weights) noexcept nogil:
    """MCTS's rollout policy "prior": in the draft phase the prior's most likely move (ties
    uniformly at random); in the tiling phase, where the prior is uniform, greedy's move."""
    cdef int moves[MAX_MOVES]
    cdef double scores[MAX_MOVES]
    cdef int n, i, choice = -1, ties = 0
    cdef double best = -1e300
    if s.phase != DRAFT:
        return greedy_move(s, rng)
    n = gen_moves(s, moves)
    move_scores(s, moves, n, weights, scores)
    for i in range(n):
        if scores[i] > best:
            best, choice, ties = scores[i], moves[i], 1
        elif scores[i] == best:
            ties += 1
            if rng_below(rng, ties) == 0:
                choice = moves[i]
    return choice


def features(state):
    """(move codes, features): a GameState's legal moves in generation order and their
    ``NFEATURES`` features each, a float32 array (moves, NFEATURES)."""
    cdef Core core = state._core
    cdef int moves[MAX_MOVES]
    cdef int n
    if core.s.phase != DRAFT and core.s.phase != TILING:
        raise ValueError(f"features: no move to play in this phase")
    n = gen_moves(&core.s, moves)
    out = np.zeros((n, NFEATURES), dtype=np.float32)
    cdef float[:, ::1] view = out
    if n:
        move_features(&core.s, moves, n, &view[0, 0])
    return [moves[i] for i in range(n)], out


def prior(state, weights):
    """{move code: prior} of a GameState's legal moves under ``weights`` (``NFEATURES`` numbers)."""
    cdef Core core = state._core
    cdef int moves[MAX_MOVES]
    cdef double w[NFEATURES]
    cdef double out[MAX_MOVES]
    cdef int n, k
    if len(weights) != NFEATURES:
        raise ValueError(f"prior: {NFEATURES} weights (one a feature: {', '.join(FEATURES)}), not {len(weights)}")
    for k in range(NFEATURES):
        w[k] = weights[k]
    if core.s.phase != DRAFT and core.s.phase != TILING:
        raise ValueError(f"prior: no move to play in this phase")
    n = gen_moves(&core.s, moves)
    prior_of(&core.s, moves, n, w, out)
    return {moves[i]: out[i] for i in range(n)}


def rollout_move(state, weights, seed=0):
    """The move code MCTS's rollout policy "prior" plays from a GameState's position under
    ``weights`` (ties drawn from ``seed``)."""
    cdef Core core = state._core
    cdef double w[NFEATURES]
    cdef Rng rng
    cdef int k
    if len(weights) != NFEATURES:
        raise ValueError(f"rollout_move: {NFEATURES} weights, not {len(weights)}")
    if core.s.phase != DRAFT and core.s.phase != TILING:
        raise ValueError(f"rollout_move: no move to play in this phase")
    for k in range(NFEATURES):
        w[k] = weights[k]
    rng.s = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF) | 1
    return prior_move(&core.s, &rng, w)
