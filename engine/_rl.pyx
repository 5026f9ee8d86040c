# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled helpers of engine.rl: observation vectors, legal-move masks and random rollouts,
read from the core's C state (engine/_core.pxd; the core itself is not changed).

``encode`` (declared in engine/_rl.pxd) is the one encoder of a position: ``observe`` fills an
observation with it, and the MCTS value evaluator (bots/_evaluators.pyx) calls it without the GIL.

The layout (docs/rl.md lists every field) is from one seat's point of view: that seat's board
first, then the others in seat order after it; the marker holder and the seat to move are named
relative to it. Everything the position format holds is here except the order of floor slots.
"""
from libc.string cimport memset

from engine._core cimport (Core, State, Board, Rng, gen_moves, apply_move, random_move, deal_random,
                           complete_rows, CENTRE, EMPTY, NO_SEAT, TILING, REFILL, OVER, MAX_MOVES)

cdef enum:
    BOARD_SIZE = 25 + 125 + 6 + 1   # pattern lines, wall, floor, score


cdef int observation_length(int players) noexcept nogil:
    return (2 * players + 1) * 5 + 5 + (players + 1) + players + 5 + 5 + 1 + 1 + players * BOARD_SIZE


def observation_size(int players):
    """The length of an observation vector for a game of ``players`` seats."""
    return observation_length(players)


def observe(Core core, int seat, float[::1] out):
    """Fill ``out`` (length observation_size) with the position as ``seat`` sees it."""
    cdef int n = core.s.players
    if out.shape[0] != observation_length(n):
        raise ValueError(f"observe: out has {out.shape[0]} entries, a {n}-player observation has "
                         f"{observation_length(n)}")
    if not 0 <= seat < n:
        raise ValueError(f"observe: seat {seat} is not a seat of a {n}-player game")
    encode(&core.s, seat, &out[0])


cdef void encode(const State* s, int seat, float* out) noexcept nogil:
    """Write the position as ``seat`` sees it into out[0 .. observation_length(players)): the one
    encoder of the RL observation and the value network's input (the layout of docs/rl.md), its
    nonzero entries being ``encode_active``'s."""
    cdef int index[MAX_OBSERVATION]
    cdef float value[MAX_OBSERVATION]
    cdef int i, n = encode_active(s, seat, index, value)
    memset(out, 0, observation_length(s.players) * sizeof(float))
    for i in range(n):
        out[index[i]] = value[i]


cdef int encode_active(const State* s, int seat, int* index, float* value) noexcept nogil:
    """The nonzero entries of ``seat``'s observation (the layout of docs/rl.md), in ascending
    index order: index[i] and value[i] for i below the count returned (index and value need room
    for observation_length(players) entries). A round's end has a few dozen of them, which is what
    the value network's first layer sums (bots/_evaluators.pyx). Each candidate entry is written
    and kept only if nonzero (the count moves on), without a branch per entry."""
    cdef const Board* b
    cdef int n = s.players, f, c, k, i, rel, at = 0, count = 0
    cdef int floor[6]
    for f in range(s.factories):
        for c in range(5):
            k = s.source[f][c]
            index[count], value[count] = at, k
            count += k != 0
            at += 1
    for c in range(5):
        k = s.source[CENTRE][c]
        index[count], value[count] = at + c, k
        count += k != 0
    at += 5
    index[count], value[count] = (at if s.marker == NO_SEAT else at + 1 + (s.marker - seat + n) % n), 1
    count += 1
    at += n + 1
    index[count], value[count] = at + (s.to_move - seat + n) % n, 1
    count += 1
    at += n
    for c in range(10):
        k = s.bag[c] if c < 5 else s.lid[c - 5]
        index[count], value[count] = at + c, k
        count += k != 0
    at += 10
    index[count], value[count] = at, s.round
    count += s.round != 0
    index[count], value[count] = at + 1, 1
    count += s.phase == TILING
    at += 2
    for rel in range(n):
        b = &s.boards[(seat + rel) % n]
        for k in range(5):
            index[count], value[count] = at + k * 5 + b.line_colour[k], b.line_count[k]
            count += b.line_count[k] != 0
        at += 25
        for i in range(25):
            index[count], value[count] = at + i * 5 + b.cell[i], 1
            count += b.cell[i] != EMPTY
        at += 125
        for c in range(6):
            floor[c] = 0
        for i in range(b.floor_n):
            floor[b.floor[i]] += 1      # colours 0..4, the marker is MARKER = 5
        for c in range(6):
            index[count], value[count] = at + c, floor[c]
            count += floor[c] != 0
        at += 6
        index[count], value[count] = at, b.score
        count += b.score != 0
        at += 1
    return count


def legal_mask(Core core, signed char[::1] mask):
    """Set ``mask[code]`` to 1 for every legal move code and 0 elsewhere; return how many are legal."""
    cdef int codes[MAX_MOVES]
    cdef int i, count
    if mask.shape[0] < 325:
        raise ValueError(f"legal_mask: mask has {mask.shape[0]} entries, move codes need 325")
    count = gen_moves(&core.s, codes)
    memset(&mask[0], 0, mask.shape[0])
    for i in range(count):
        mask[codes[i]] = 1
    return count


def random_rollout(Core core, seed):
    """Play a copy of the position to the end with uniform random moves and deals drawn from
    ``seed`` (the core's random_move and deal_random); return (scores, complete wall rows)."""
    cdef State s = core.s
    cdef Rng rng
    rng.s = <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    with nogil:
        while s.phase != OVER:
            if s.phase == REFILL:
                deal_random(&s, &rng)
            else:
                apply_move(&s, random_move(&s, &rng))
    return ([s.boards[p].score for p in range(s.players)],
            [complete_rows(&s.boards[p]) for p in range(s.players)])
