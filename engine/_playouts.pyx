# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Random playouts: whole games of uniform random moves in C, for speed (`engine.random_playouts`).

Its results are statistics, so it has its own generator and draw scheme (wyrand, one number per
move and one per factory dealt): the same distributions as the core's random_move and
deal_random, not the same numbers for a seed. The rules are the core's (engine/_core.pxd).
``_checked_playouts`` and ``_playout_draws`` are the tests' hooks into it.
"""
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.string cimport memset

from engine._core cimport (
    Core, State, Board, DRAFT, TILING, REFILL, OVER, MARKER, TILING_BASE, POPCOUNT, SELECT,
    state_init, start_round, check_move, apply_move, apply_draft, bag_bounds, recycle_lid,
    place_drawn, tiling_line, free_columns, draft_weights,
)

# DIVMOD[w][r] = (r // w) << 3 | r % w for w in 1..6, r < 60: splits one draw over the
# (source, destination) pairs of a colour (w destinations each) into both without a division.
cdef uint8_t DIVMOD[7][64]
cdef int _w, _r
for _w in range(7):
    for _r in range(64):
        DIVMOD[_w][_r] = ((_r // _w) << 3 | _r % _w) if _w else 0

# The playout generator: wyrand (one 64x64->128-bit multiply per number, against splitmix64's two
# multiplies and three shifts), used only inside random_playouts, whose results are statistics.
# Everything seeded that a caller can observe move by move (deal(seed=...), bots' random_move,
# MCTS rollouts) keeps the core's rng_next, so records and pinned games do not change.
cdef extern from *:
    """
    static inline uint64_t azul_wyrand(uint64_t *s) {
        *s += 0xa0761d6478bd642fULL;
        __uint128_t t = (__uint128_t)*s * (*s ^ 0xe7037ed1a0b428dbULL);
        return (uint64_t)(t >> 64) ^ (uint64_t)t;
    }
    """
    uint64_t azul_wyrand(uint64_t* s) noexcept nogil

# Several draws from one 64-bit number (deal_playout: the four tiles of a factory): the product
# bits * n is draw * 2**64 + rest, and rest, uniform on 0..2**64-1 up to a bias below n / 2**64,
# is the next draw's bits. After four draws from at most 100 tiles the bias is under 1e-11.
cdef extern from *:
    """
    static inline uint32_t azul_draw(uint64_t *bits, uint32_t n) {
        __uint128_t t = (__uint128_t)*bits * n;
        *bits = (uint64_t)t;
        return (uint32_t)(t >> 64);
    }
    """
    uint32_t azul_draw(uint64_t* bits, uint32_t n) noexcept nogil

cdef inline uint32_t below(uint32_t x, uint32_t n) noexcept nogil:
    """A 32-bit uniform x scaled to 0..n-1 (multiply-shift: bias under n / 2**32)."""
    return <uint32_t>((<uint64_t>x * n) >> 32)

cdef int deal_playout(State* s, uint64_t* rng) noexcept nogil:
    """deal_random for random_playouts: the same rules and distribution, one generator call per
    factory (four tiles, see azul_draw) instead of one per tile."""
    cdef int i, dealt = 0, upto[4]
    cdef int in_bag = bag_bounds(s, upto)
    cdef uint64_t bits = 0
    for i in range(4 * s.factories):
        if in_bag == 0:
            in_bag = recycle_lid(s, upto)
            if in_bag == 0:
                break
        if i & 3 == 0:
            bits = azul_wyrand(rng)
        place_drawn(s, i, azul_draw(&bits, in_bag), upto)
        in_bag -= 1
        dealt += 1
    start_round(s, dealt)
    return dealt

cdef inline int playout_pick(const State* s, uint64_t* rng, int* src, int* c, int* d) noexcept nogil:
    """random_move's distribution from one generator call (random_playouts only).

    Returns a tiling move's code, or -1 for a draft move given as (src, c, d): one draw r picks
    the triple, its colour from the prefix sums, then r's offset inside that colour's block,
    (source rank) * ways + (destination rank), split by the DIVMOD table.
    """
    cdef int k, r, col
    cdef int dests[5], ways[5], upto[5]
    cdef const Board* b = &s.boards[s.to_move]
    cdef uint32_t x = <uint32_t>(azul_wyrand(rng) >> 32)
    if s.phase == TILING:
        k = tiling_line(s)
        col = free_columns(b, k, b.line_colour[k])
        return TILING_BASE + k * 5 + SELECT[col][below(x, POPCOUNT[col])]
    r = below(x, draft_weights(s, b, dests, ways, upto))
    c[0] = (r >= upto[0]) + (r >= upto[1]) + (r >= upto[2]) + (r >= upto[3])
    k = DIVMOD[ways[c[0]]][r - upto[c[0]] + POPCOUNT[s.holders[c[0]]] * ways[c[0]]]
    src[0] = SELECT[s.holders[c[0]]][k >> 3]
    d[0] = SELECT[dests[c[0]]][k & 7]
    return -1

cdef inline int playout_code(const State* s, uint64_t* rng) noexcept nogil:
    """playout_pick's move as a move code (for the checks, not the hot loop)."""
    cdef int src, c, d, code = playout_pick(s, rng, &src, &c, &d)
    return code if code >= 0 else (src * 5 + c) * 6 + d

cdef inline int tiles_accounted(const State* s) noexcept nogil:
    """Every tile of the game wherever it is (100 in a consistent position)."""
    cdef int total = 0, i, c, p, k
    cdef const Board* b
    for c in range(5):
        total += s.bag[c] + s.lid[c]
        for i in range(10):
            total += s.source[i][c]
    for p in range(s.players):
        b = &s.boards[p]
        for k in range(5):
            total += b.line_count[k] + POPCOUNT[b.row_mask[k]]
        for i in range(b.floor_n):
            total += b.floor[i] != MARKER
    return total

cdef void playouts(long long games, int players, bint gray, uint64_t* rng, long long* totals) noexcept nogil:
    """random_playouts' loop: totals[0..2] += moves, rounds dealt, final scores."""
    cdef State s
    cdef long long g, moves = 0, rounds = 0, score = 0
    cdef int p, code, src, c, d
    for g in range(games):
        state_init(&s, players, gray)
        while s.phase != OVER:
            if s.phase == REFILL:
                rounds += deal_playout(&s, rng) != 0
            else:
                code = playout_pick(&s, rng, &src, &c, &d)
                if code < 0:
                    apply_draft(&s, src, c, d)
                else:
                    apply_move(&s, code)
                moves += 1
        for p in range(players):
            score += s.boards[p].score
    totals[0] += moves
    totals[1] += rounds
    totals[2] += score

cdef long long checked_playouts(long long games, int players, bint gray, uint64_t* rng,
                                long long* totals) noexcept nogil:
    """playouts' games (the same draws), with every move passed through check_move first and
    every position checked to hold all 100 tiles. Returns 0, or the number of the failing move."""
    cdef State s
    cdef long long g
    cdef int p, code
    for g in range(games):
        state_init(&s, players, gray)
        while s.phase != OVER:
            if s.phase == REFILL:
                totals[1] += deal_playout(&s, rng) != 0
            else:
                code = playout_code(&s, rng)
                totals[0] += 1
                if check_move(&s, code):
                    return totals[0]
                apply_move(&s, code)
            if tiles_accounted(&s) != 100:
                return totals[0]
        for p in range(players):
            totals[2] += s.boards[p].score
    return 0

def random_playouts(long long games, int players=2, str variant="colored", seed=0):
    """Play whole games of uniform random moves in C; return the totals.

    Its own generator and draw scheme (playout_pick, deal_playout): the same distributions as
    random_move and deal_random, not the same numbers for a seed.
    """
    cdef long long totals[3]
    if players < 2 or players > 4:
        raise ValueError(f"players must be 2, 3 or 4, not {players}")
    if variant not in ("colored", "gray"):
        raise ValueError(f"variant must be 'colored' or 'gray', not {variant!r}")
    if games < 0:
        raise ValueError(f"games must be at least 0, not {games}")
    cdef uint64_t rng = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    cdef bint gray = variant == "gray"
    memset(totals, 0, sizeof(totals))
    with nogil:
        playouts(games, players, gray, &rng, totals)
    return {"games": games, "moves": totals[0], "rounds": totals[1], "score": totals[2]}

def _checked_playouts(long long games, int players, str variant, seed):
    """random_playouts' games again (the same totals for the same arguments), each move checked
    legal and every position checked to hold 100 tiles: for the tests. Raises on a failure."""
    cdef long long totals[3], failed
    cdef uint64_t rng = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    memset(totals, 0, sizeof(totals))
    failed = checked_playouts(games, players, variant == "gray", &rng, totals)
    if failed:
        raise AssertionError(f"random play went wrong at move {failed}")
    return {"games": games, "moves": totals[0], "rounds": totals[1], "score": totals[2]}

def _playout_draws(Core core, long long n, seed):
    """n draws of random_playouts' move picker from one position (not played): {code: count}."""
    cdef uint64_t rng = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    cdef long long i
    counts = {}
    if core.s.phase not in (DRAFT, TILING):
        raise ValueError("no move to draw outside the draft and gray tiling")
    for i in range(n):
        code = playout_code(&core.s, &rng)
        counts[code] = counts.get(code, 0) + 1
    return counts

