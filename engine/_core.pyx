# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled core: one C struct per position and the loops over it.

Validation, notation and JSON live in plain Python (engine/state.py, notation.py, position.py);
this module trusts its callers except in `check_move`, which the public API calls before
`apply_move`. The differential tests compare everything here with engine/reference.py.
"""
from libc.string cimport memcpy, memset
from cpython.bytes cimport PyBytes_FromStringAndSize, PyBytes_AS_STRING, PyBytes_GET_SIZE

# Floor penalty of the first n occupied slots (1, 1, 2, 2, 2, 3, 3 by slot).
cdef int32_t FLOOR_COST[8]
FLOOR_COST[:] = [0, 1, 2, 4, 6, 8, 11, 14]

# RUN[mask][pos]: length of the run of set bits through bit pos of a 5-bit mask.
cdef uint8_t RUN[32][5]
# POPCOUNT[m]: set bits of a 10-bit mask; LOWEST[m]: index of its lowest set bit.
cdef uint8_t POPCOUNT[1024]
cdef uint8_t LOWEST[1024]
# SPREAD[m]: bit c of the 5-bit mask m moved to bit 8*c (a 5x5 bit transpose, one row at a time).
cdef uint64_t SPREAD[32]
# SELECT[m][k]: index of the k-th lowest set bit of a 10-bit mask (k < POPCOUNT[m]). Random play
# picks "the k-th source holding a colour" and "the k-th destination taking it" with k random: a
# loop clearing k low bits has a random trip count, and so a mispredicted exit on nearly every
# move; one load from this 10 KB table has no branch at all.
cdef uint8_t SELECT[1024][10]
# DIVMOD[w][r] = (r // w) << 3 | r % w for w in 1..6, r < 60: splits one draw over the
# (source, destination) pairs of a colour (w destinations each) into both without a division.
cdef uint8_t DIVMOD[7][64]

cdef void _init_tables() noexcept:
    cdef int m, p, lo, hi
    for m in range(1024):
        POPCOUNT[m] = 0
        LOWEST[m] = 10
        for p in range(9, -1, -1):
            if (m >> p) & 1:
                POPCOUNT[m] += 1
                LOWEST[m] = p
        memset(SELECT[m], 0, 10)
        lo = 0
        for p in range(10):
            if (m >> p) & 1:
                SELECT[m][lo] = p
                lo += 1
    for hi in range(7):
        for m in range(64):
            DIVMOD[hi][m] = ((m // hi) << 3 | m % hi) if hi else 0
    for m in range(32):
        SPREAD[m] = 0
        for p in range(5):
            if (m >> p) & 1:
                SPREAD[m] |= (<uint64_t>1) << (8 * p)
    for m in range(32):
        for p in range(5):
            if not (m >> p) & 1:
                RUN[m][p] = 0
                continue
            lo = p
            while lo > 0 and (m >> (lo - 1)) & 1:
                lo -= 1
            hi = p
            while hi < 4 and (m >> (hi + 1)) & 1:
                hi += 1
            RUN[m][p] = hi - lo + 1

_init_tables()

cdef Board _layout
# floor_push's one-word view of the floor (see above) needs this layout of Board.
if <char*>&_layout.floor_n - <char*>&_layout.floor[0] != 7 or (<char*>&_layout.floor[0] - <char*>&_layout) % 8:
    raise ImportError("engine._core: Board.floor and floor_n are not one aligned 8-byte word")

# Error codes of check_move; engine/state.py turns them into messages.
ERRORS = {
    1: "not_draft", 2: "no_factory", 3: "no_colour", 4: "line_full", 5: "line_other",
    6: "wall_row", 7: "not_tiling", 8: "wrong_line", 9: "square_taken", 10: "column_has",
    11: "bad_code",
}

# ---------------------------------------------------------------- generator

cdef uint64_t rng_next(Rng* r) noexcept nogil:
    # splitmix64: the same numbers on every platform and Python version.
    cdef uint64_t z
    r.s += <uint64_t>0x9E3779B97F4A7C15
    z = r.s
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)

cdef uint32_t rng_below(Rng* r, uint32_t n) noexcept nogil:
    return <uint32_t>(((rng_next(r) >> 32) * n) >> 32)

# The playout generator: wyrand (one 64x64->128-bit multiply per number, against splitmix64's two
# multiplies and three shifts), used only inside random_playouts, whose results are statistics.
# Everything seeded that a caller can observe move by move (deal(seed=...), bots' random_move,
# MCTS rollouts) keeps rng_next above, so records and pinned games do not change.
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

# Board.floor[7] and Board.floor_n sit in one aligned 8-byte word (byte 7 is floor_n): floor_push
# updates both with one load and one store, no loop and no branch. Two byte stores followed by a
# wide load of the same word would stall store forwarding, so every floor write goes through it.
cdef extern from *:
    """
    #include <string.h>
    #if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    #error "engine/_core.pyx: floor_push assumes a little-endian machine"
    #endif
    static inline uint64_t azul_load8(const void *p) { uint64_t w; memcpy(&w, p, 8); return w; }
    static inline void azul_store8(void *p, uint64_t w) { memcpy(p, &w, 8); }
    """
    uint64_t azul_load8(const void* p) noexcept nogil
    void azul_store8(void* p, uint64_t w) noexcept nogil

cdef inline uint32_t below(uint32_t x, uint32_t n) noexcept nogil:
    """A 32-bit uniform x scaled to 0..n-1 (multiply-shift: bias under n / 2**32)."""
    return <uint32_t>((<uint64_t>x * n) >> 32)

# ---------------------------------------------------------------- setup and dealing

cdef void state_init(State* s, int players, bint gray) noexcept nogil:
    cdef int p, k
    memset(s, 0, sizeof(State))
    s.players = players
    s.factories = 2 * players + 1
    s.gray = gray
    s.phase = REFILL
    s.marker = NO_SEAT
    s.round = 1
    for k in range(5):
        s.bag[k] = 20
    for p in range(4):
        memset(s.boards[p].cell, EMPTY, 25)
        for k in range(5):
            set_line(&s.boards[p], k, EMPTY, 0)

cdef inline int bag_bounds(const State* s, int* upto) noexcept nogil:
    """upto[k]: bag tiles of colours 0..k, so a draw x < total is colour #{k < 4: x >= upto[k]}."""
    upto[0] = s.bag[0]
    upto[1] = upto[0] + s.bag[1]
    upto[2] = upto[1] + s.bag[2]
    upto[3] = upto[2] + s.bag[3]
    return upto[3] + s.bag[4]

cdef inline int recycle_lid(State* s, int* upto) noexcept nogil:
    """The bag ran out: the whole lid goes into it; return the tiles now in the bag."""
    cdef int c
    for c in range(5):
        s.bag[c] = s.lid[c]
        s.lid[c] = 0
    return bag_bounds(s, upto)

cdef inline void place_drawn(State* s, int i, int x, int* upto) noexcept nogil:
    """Tile number i of the deal is the bag's x-th tile (colours in order): into factory i / 4."""
    cdef int c = (x >= upto[0]) + (x >= upto[1]) + (x >= upto[2]) + (x >= upto[3])
    s.bag[c] -= 1
    s.source[i >> 2][c] += 1
    upto[0] -= c < 1
    upto[1] -= c < 2
    upto[2] -= c < 3
    upto[3] -= c < 4

cdef int deal_random(State* s, Rng* rng) noexcept nogil:
    """Fill the factories in order from the bag, recycling the lid when the bag runs out."""
    cdef int i, dealt = 0, upto[4]
    cdef int in_bag = bag_bounds(s, upto)
    for i in range(4 * s.factories):
        if in_bag == 0:
            in_bag = recycle_lid(s, upto)
            if in_bag == 0:
                break
        place_drawn(s, i, rng_below(rng, in_bag), upto)
        in_bag -= 1
        dealt += 1
    start_round(s, dealt)
    return dealt

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

cdef void index_sources(State* s) noexcept nogil:
    """Recompute which sources hold each colour (State.holders)."""
    cdef int i, c
    for c in range(5):
        s.holders[c] = 0
        for i in range(10):
            if s.source[i][c]:
                s.holders[c] |= 1 << i

cdef void start_round(State* s, int dealt) noexcept nogil:
    cdef int p
    index_sources(s)
    s.remaining = dealt
    for p in range(s.players):
        s.boards[p].round_points = 0
        s.boards[p].round_penalty = 0
    if dealt == 0:      # no tile can ever move again: over, the marker still with the next opener
        end_game(s)
    else:
        s.marker = NO_SEAT
        s.phase = DRAFT

# ---------------------------------------------------------------- moves

cdef inline void set_line(Board* b, int k, int colour, int count) noexcept nogil:
    """Set pattern line k and refresh which colours it accepts (call after its wall row changes)."""
    # empty: the colours its wall row lacks; partly filled: its colour; full: none (no branch:
    # which case applies is random in random play)
    cdef int takes = ((~b.row_colours[k] & 31) if count == 0 else 0) | (
        (1 << (colour & 7)) if (count != 0) & (count <= k) else 0)
    b.line_colour[k] = colour if count else EMPTY
    b.line_count[k] = count
    b.accept = (b.accept & ~(SPREAD[31] << k)) | (SPREAD[takes] << k)

cdef inline int tiling_line(const State* s) noexcept nogil:
    """The topmost complete line of the seat to move (tiling phase), or -1."""
    cdef const Board* b = &s.boards[s.to_move]
    cdef int k
    for k in range(5):
        if b.line_count[k] == k + 1:
            return k
    return -1

cdef inline int free_columns(const Board* b, int row, int c) noexcept nogil:
    """Bit col set when the gray wall square (row, col) may take colour c."""
    cdef int col, taken = b.row_mask[row]
    if (b.row_colours[row] >> c) & 1:
        return 0
    for col in range(5):    # no branch per column: random walls would mispredict it
        taken |= ((b.col_colours[col] >> c) & 1) << col
    return ~taken & 31

cdef int gen_moves(const State* s, int* out) noexcept nogil:
    cdef int n = 0, i, src, c, d, k, masks[5]
    cdef const uint8_t* counts
    cdef const Board* b = &s.boards[s.to_move]
    if s.phase == DRAFT:
        for c in range(5):
            masks[c] = dest_mask(b, c)
        for i in range(s.factories + 1):
            src = CENTRE if i == s.factories else i
            counts = s.source[src]
            for c in range(5):
                if counts[c]:
                    for d in range(6):
                        if (masks[c] >> d) & 1:
                            out[n] = (src * 5 + c) * 6 + d
                            n += 1
    elif s.phase == TILING:
        k = tiling_line(s)
        d = free_columns(b, k, b.line_colour[k])
        for c in range(5):
            if (d >> c) & 1:
                out[n] = TILING_BASE + k * 5 + c
                n += 1
    return n

cdef int check_move(const State* s, int code) noexcept nogil:
    """0 when the move is legal, otherwise an error code (see ERRORS)."""
    cdef int src, c, d, k, col
    cdef const Board* b = &s.boards[s.to_move]
    if code < 0 or code >= TILING_BASE + 25:
        return 11
    if code < TILING_BASE:
        if s.phase != DRAFT:
            return 1
        src = code // 30
        c = (code // 6) % 5
        d = code % 6
        if src != CENTRE and src >= s.factories:
            return 2
        if s.source[src][c] == 0:
            return 3
        if d == FLOOR:
            return 0
        if b.line_count[d] == d + 1:
            return 4
        if b.line_count[d] and b.line_colour[d] != c:
            return 5
        if (b.row_colours[d] >> c) & 1:
            return 6
        return 0
    if s.phase != TILING:
        return 7
    k = (code - TILING_BASE) // 5
    col = (code - TILING_BASE) % 5
    if k != tiling_line(s):
        return 8
    if (b.row_mask[k] >> col) & 1:
        return 9
    if (b.col_colours[col] >> b.line_colour[k]) & 1:
        return 10
    return 0

cdef inline int floor_push(Board* b, int value, int n) noexcept nogil:
    """Put up to n slots of `value` (a colour or MARKER) on the floor; return how many fitted."""
    cdef uint64_t word = azul_load8(b.floor)
    cdef int at = word >> 56                       # floor_n
    cdef int fit = 7 - at
    cdef uint64_t mask
    if fit > n:
        fit = n
    # bytes at .. at+fit-1 (fit <= 7 - at, so never byte 7): fit*8 <= 56, no undefined shift
    mask = (((<uint64_t>1) << (8 * fit)) - 1) << (8 * at)
    word = (word & ~mask) | ((<uint64_t>value * <uint64_t>0x0101010101010101) & mask)
    azul_store8(b.floor, word + ((<uint64_t>fit) << 56))
    return fit

cdef inline void to_floor(State* s, Board* b, int c, int n) noexcept nogil:
    """n tiles of colour c to the floor; what does not fit goes to the lid."""
    s.lid[c] += n - floor_push(b, c, n)

cdef void apply_move(State* s, int code) noexcept nogil:
    """Apply a legal move and every automatic step after it."""
    cdef int c, k
    cdef Board* b = &s.boards[s.to_move]
    if code >= TILING_BASE:
        k = (code - TILING_BASE) // 5
        c = b.line_colour[k]
        place(b, k, (code - TILING_BASE) % 5, c)
        s.lid[c] += k
        set_line(b, k, EMPTY, 0)
        advance_tiling(s)
        return
    apply_draft(s, code // 30, (code // 6) % 5, code % 6)

cdef inline void apply_draft(State* s, int src, int c, int d) noexcept nogil:
    """Take colour c from source src to destination d (line 0..4 or FLOOR), then move on.

    Written without branches on the move: in random play whether the source is the centre, the
    destination the floor, or tiles overflow is random, and each such branch mispredicts often.
    """
    cdef int n, o, put, line, factory = src != CENTRE, taken_marker
    cdef int keep[5], to_centre[5]
    cdef Board* b = &s.boards[s.to_move]
    cdef uint8_t* row = s.source[src]
    cdef uint8_t* centre = s.source[CENTRE]
    n = row[c]
    if factory:
        # The factory's other colours go to the centre. Branch-free, and the row is read before
        # any store to it: zeroing row[c] first made the compiler's vectorised loop load bytes
        # just stored (a store-forwarding stall), and a branch per colour mispredicts at random.
        for o in range(5):
            keep[o] = row[o] if o != c else 0
            centre[o] += keep[o]
            s.holders[o] = (s.holders[o] & ~(1 << src)) | ((keep[o] != 0) << CENTRE)
        memset(row, 0, 5)
    else:
        row[c] = 0
        s.holders[c] &= ~(1 << CENTRE)
        if s.marker == NO_SEAT:
            s.marker = s.to_move
            floor_push(b, MARKER, 1)
    s.remaining -= n
    if d != FLOOR:
        put = d + 1 - b.line_count[d]
        if put > n:
            put = n
        set_line(b, d, c, b.line_count[d] + put)
        n -= put
    to_floor(s, b, c, n)
    s.to_move += 1
    if s.to_move == s.players:
        s.to_move = 0
    if s.remaining == 0:
        end_draft(s)

# ---------------------------------------------------------------- tiling and scoring

cdef void place(Board* b, int row, int col, int c) noexcept nogil:
    """Put a tile of colour c on the wall and score it at once."""
    cdef int points
    b.row_mask[row] |= 1 << col
    b.col_mask[col] |= 1 << row
    b.row_colours[row] |= 1 << c
    b.col_colours[col] |= 1 << c
    b.colour_count[c] += 1
    b.cell[row * 5 + col] = c
    points = placement_points(b.row_mask[row], b.col_mask[col], row, col)
    b.score += points
    b.round_points += points

cdef int placement_points(int row_mask, int col_mask, int row, int col) noexcept nogil:
    """Points of a tile at (row, col), given its row's and column's masks with the tile in."""
    cdef int h = RUN[row_mask][col]
    cdef int v = RUN[col_mask][row]
    cdef int points = (h if h > 1 else 0) + (v if v > 1 else 0)
    return points if points else 1

cdef int floor_cost(int slots) noexcept nogil:
    """The penalty of the first `slots` occupied floor slots (0..7)."""
    return FLOOR_COST[slots]

cdef void end_draft(State* s) noexcept nogil:
    cdef int p, k, c
    cdef Board* b
    if s.gray:
        s.phase = TILING
        s.to_move = 0
        advance_tiling(s)
        return
    for p in range(s.players):
        b = &s.boards[p]
        for k in range(5):
            if b.line_count[k] == k + 1:
                c = b.line_colour[k]
                place(b, k, (c + k) % 5, c)
                s.lid[c] += k
                set_line(b, k, EMPTY, 0)
    end_round(s)

cdef void advance_tiling(State* s) noexcept nogil:
    """Gray wall: stop at the next complete line that has a choice; drop lines that have none."""
    cdef int k, c
    cdef Board* b
    while s.to_move < s.players:
        b = &s.boards[s.to_move]
        for k in range(5):
            if b.line_count[k] == k + 1:
                c = b.line_colour[k]
                if free_columns(b, k, c):
                    return
                set_line(b, k, EMPTY, 0)
                to_floor(s, b, c, k + 1)
        s.to_move += 1
    end_round(s)

cdef void end_round(State* s) noexcept nogil:
    cdef int p, i, next_opener, back[MARKER + 1]
    cdef bint finished = False
    cdef Board* b
    for p in range(s.players):
        b = &s.boards[p]
        b.round_penalty = FLOOR_COST[b.floor_n] if FLOOR_COST[b.floor_n] < b.score else b.score
        b.score -= b.round_penalty
        # the floor's tiles to the lid: a fixed loop over the 7 slots (a slot past floor_n holds
        # a stale colour or MARKER and counts 0), no branch on its random length or contents
        memset(back, 0, sizeof(back))
        for i in range(7):
            back[b.floor[i]] += i < b.floor_n
        for i in range(5):
            s.lid[i] += back[i]
        b.floor_n = 0
        for i in range(5):
            if b.row_mask[i] == 31:
                finished = True
    next_opener = s.opener if s.marker == NO_SEAT else s.marker
    s.to_move = next_opener
    s.marker = next_opener
    if finished or not can_still_end(s):
        end_game(s)
    else:
        s.phase = REFILL
        s.round += 1
        s.opener = next_opener

cdef bint can_still_end(const State* s) noexcept nogil:
    """False when no seat can ever complete a wall row, so the game could never end.

    A colour with no tile in bag or lid (at the end of a round) is frozen for good: its tiles are on
    walls or in pattern lines that can never fill. A row is out of reach when its pattern line
    holds a frozen colour, when it lacks a frozen colour, or (gray wall) when its missing colours
    cannot all find distinct empty squares whose columns lack them.
    """
    cdef int p, r, c, frozen = 0, missing, sub, reach
    cdef const Board* b
    for c in range(5):
        if s.bag[c] + s.lid[c] == 0:
            frozen |= 1 << c
    if frozen == 0 and not s.gray:
        return True
    for p in range(s.players):
        b = &s.boards[p]
        for r in range(5):
            if b.line_count[r] and (frozen >> b.line_colour[r]) & 1:
                continue
            missing = ~b.row_colours[r] & 31
            if missing & frozen:
                continue
            if not s.gray:
                return True
            # Hall's condition: every set of missing colours reaches as many free squares.
            sub = missing
            while sub:
                reach = 0
                for c in range(5):
                    if (sub >> c) & 1:
                        reach |= free_columns(b, r, c)
                if POPCOUNT[reach] < POPCOUNT[sub]:
                    break
                sub = (sub - 1) & missing
            if sub == 0:
                return True
    return False

cdef void end_game(State* s) noexcept nogil:
    cdef int p, i
    cdef Board* b
    for p in range(s.players):
        b = &s.boards[p]
        b.bonus = 0
        for i in range(5):
            b.bonus += 2 * (b.row_mask[i] == 31) + 7 * (b.col_mask[i] == 31) + 10 * (b.colour_count[i] == 5)
        b.score += b.bonus
    s.phase = OVER

# ---------------------------------------------------------------- random play

cdef inline int draft_weights(const State* s, const Board* b, int* dests, int* ways, int* upto) noexcept nogil:
    """Per colour c: dests[c], the destinations taking it (bit d); ways[c], how many; upto[c], the
    legal (source, colour, destination) triples of colours 0..c. Returns the total."""
    cdef int c, total = 0
    for c in range(5):
        dests[c] = ((b.accept >> (8 * c)) & 31) | (1 << FLOOR)
        ways[c] = POPCOUNT[dests[c]]
        total += POPCOUNT[s.holders[c]] * ways[c]
        upto[c] = total
    return total

cdef int random_move(const State* s, Rng* rng) noexcept nogil:
    """A move drawn uniformly from the legal (source, colour, destination) triples, without listing them.

    Three draws (colour weighted by its triples, then source, then destination), always in this
    order and from these ranges: bots' random moves and MCTS rollouts depend on this stream.
    """
    cdef int c, k, r, col
    cdef int dests[5], ways[5], upto[5]
    cdef const Board* b = &s.boards[s.to_move]
    if s.phase == TILING:
        k = tiling_line(s)
        col = free_columns(b, k, b.line_colour[k])
        return TILING_BASE + k * 5 + SELECT[col][rng_below(rng, POPCOUNT[col])]
    r = rng_below(rng, draft_weights(s, b, dests, ways, upto))
    # The colour from the prefix sums without a branch (a colour with no triple is never chosen:
    # its bound equals the previous one).
    c = (r >= upto[0]) + (r >= upto[1]) + (r >= upto[2]) + (r >= upto[3])
    # colour c, chosen with weight (sources holding it) x (destinations taking it); then
    # source and destination uniformly: every legal triple has probability 1 / total.
    k = SELECT[s.holders[c]][rng_below(rng, POPCOUNT[s.holders[c]])]
    return (k * 5 + c) * 6 + SELECT[dests[c]][rng_below(rng, ways[c])]

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

# ---------------------------------------------------------------- the Python-facing object

cdef class Core:
    """One position. engine.GameState wraps it; it checks nothing but moves."""

    @staticmethod
    def new(int players, bint gray):
        cdef Core core = Core.__new__(Core)
        state_init(&core.s, players, gray)
        return core

    def clone(self):
        cdef Core core = Core.__new__(Core)
        memcpy(&core.s, &self.s, sizeof(State))
        return core

    def __reduce__(self):
        return (_core_from_bytes, (PyBytes_FromStringAndSize(<char*>&self.s, sizeof(State)),))

    @property
    def phase(self):
        return self.s.phase

    @property
    def to_move(self):
        return self.s.to_move

    @property
    def players(self):
        return self.s.players

    @property
    def gray(self):
        return self.s.gray

    @property
    def round(self):
        return self.s.round

    def scores(self):
        return [self.s.boards[p].score for p in range(self.s.players)]

    def legal_codes(self):
        cdef int out[MAX_MOVES]
        cdef int n = gen_moves(&self.s, out)
        return [out[i] for i in range(n)]

    def legal_moves(self, list table):
        """The legal moves as table[code] objects (interned Move instances)."""
        cdef int out[MAX_MOVES]
        cdef int n = gen_moves(&self.s, out)
        return [table[out[i]] for i in range(n)]

    def can_still_end(self):
        """Whether some seat could still complete a wall row (see can_still_end in C)."""
        return can_still_end(&self.s)

    def play(self, int code):
        """Apply the move if legal; return 0, or the error code and change nothing."""
        cdef int err = check_move(&self.s, code)
        if err == 0:
            apply_move(&self.s, code)
        return err

    def play_facts(self, int code):
        """Apply the move if legal; return (error, seat, colour, taken, to_floor, took_marker).

        ``error`` is 0 or check_move's code (and nothing changes). A tiling move reports its
        line's colour and no tiles taken. ``to_floor`` counts every tile that did not fit the
        pattern line, including those past a full floor.
        """
        cdef int err = check_move(&self.s, code)
        cdef int seat = self.s.to_move, src, c, d, n, put = 0
        cdef const Board* b = &self.s.boards[seat]
        cdef bint marker = False
        if err:
            return (err, seat, -1, 0, 0, False)
        if code >= TILING_BASE:
            c = b.line_colour[(code - TILING_BASE) // 5]
            apply_move(&self.s, code)
            return (0, seat, c, None, 0, False)
        src, c, d = code // 30, (code // 6) % 5, code % 6
        n = self.s.source[src][c]
        marker = src == CENTRE and self.s.marker == NO_SEAT
        if d != FLOOR:
            put = min(n, d + 1 - b.line_count[d])
        apply_move(&self.s, code)
        return (0, seat, c, n, n - put, marker)

    def legal_count(self):
        cdef int out[MAX_MOVES]
        return gen_moves(&self.s, out)

    def round_scoring(self):
        """Per seat: (wall points since the deal, floor penalty taken at the round's end, end bonus)."""
        return [(self.s.boards[p].round_points, self.s.boards[p].round_penalty, self.s.boards[p].bonus)
                for p in range(self.s.players)]

    def deal_seed(self, seed):
        cdef Rng rng
        rng.s = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        return deal_random(&self.s, &rng)

    def deal_forced(self, factories, bag, lid):
        """Install a deal already checked in Python: factory counts, and the bag and lid after it."""
        cdef int f, c, dealt = 0
        for f in range(self.s.factories):
            for c in range(5):
                self.s.source[f][c] = factories[f][c]
                dealt += factories[f][c]
        for c in range(5):
            self.s.bag[c] = bag[c]
            self.s.lid[c] = lid[c]
        start_round(&self.s, dealt)
        return dealt

    def export(self):
        """The raw position: plain Python values that engine/state.py turns into JSON."""
        cdef Board* b
        boards = []
        for p in range(self.s.players):
            b = &self.s.boards[p]
            boards.append((
                b.score,
                [(b.line_colour[k], b.line_count[k]) for k in range(5)],
                [b.cell[i] for i in range(25)],
                [b.floor[i] for i in range(b.floor_n)],
            ))
        return {
            "players": self.s.players, "gray": bool(self.s.gray), "phase": self.s.phase,
            "round": self.s.round, "to_move": self.s.to_move, "opener": self.s.opener,
            "marker": None if self.s.marker == NO_SEAT else self.s.marker,
            "factories": [[self.s.source[f][c] for c in range(5)] for f in range(self.s.factories)],
            "center": [self.s.source[CENTRE][c] for c in range(5)],
            "bag": [self.s.bag[c] for c in range(5)], "lid": [self.s.lid[c] for c in range(5)],
            "boards": boards,
        }

    @staticmethod
    def load(dict raw):
        """Build a core from export()'s shape (already validated in Python)."""
        cdef Core core = Core.__new__(Core)
        cdef State* s = &core.s
        cdef Board* b
        cdef int p, k, i, c
        state_init(s, raw["players"], raw["gray"])
        s.phase = raw["phase"]
        s.round = raw["round"]
        s.to_move = raw["to_move"]
        s.opener = raw["opener"]
        s.marker = NO_SEAT if raw["marker"] is None else raw["marker"]
        for f, counts in enumerate(raw["factories"]):
            for c in range(5):
                s.source[f][c] = counts[c]
                s.remaining += counts[c]
        for c in range(5):
            s.source[CENTRE][c] = raw["center"][c]
            s.remaining += raw["center"][c]
            s.bag[c] = raw["bag"][c]
            s.lid[c] = raw["lid"][c]
        for p, (score, lines, cells, floor) in enumerate(raw["boards"]):
            b = &s.boards[p]
            b.score = score
            for i in range(25):
                if cells[i] != EMPTY:
                    place(b, i // 5, i % 5, cells[i])
            for k in range(5):
                set_line(b, k, lines[k][0], lines[k][1])
            b.score = score
            b.round_points = 0
            for i, slot in enumerate(floor):
                b.floor[i] = slot
            b.floor_n = len(floor)
        index_sources(s)
        return core


def rules_tables():
    """The rules tables compiled into the core, for the test that checks them against engine/rules.py."""
    return {"floor_totals": [FLOOR_COST[i] for i in range(8)],
            "placement": {(row, col, rm, cm): placement_points(rm, cm, row, col)
                          for row in range(5) for col in range(5) for rm in range(32) for cm in range(32)
                          if (rm >> col) & 1 and (cm >> row) & 1}}


def _core_from_bytes(bytes data):
    cdef Core core = Core.__new__(Core)
    if PyBytes_GET_SIZE(data) != sizeof(State):
        raise ValueError("pickled engine state has the wrong size (built by another engine version?)")
    memcpy(&core.s, PyBytes_AS_STRING(data), sizeof(State))
    return core


