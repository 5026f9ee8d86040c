# The compiled core of the engine: the state in C structs, and the rules as C functions over it.
# The small rules (a wall square's points, placing a tile, which gray squares take a colour, the
# floor's cost, complete rows, ranks, what a move takes) are `cdef inline` here, written once and
# compiled into every module that cimports them: the core's state machine (engine/_core.pyx),
# random playouts (engine/_playouts.pyx), the bots' policies and the compiled league loop.
from libc.stdint cimport uint8_t, uint16_t, int16_t, int32_t, uint32_t, uint64_t
from libc.string cimport memset

cdef enum:
    NCOLOURS = 5
    MAX_FACTORIES = 9
    CENTRE = 9          # source index of the centre (factories are 0..8)
    FLOOR = 5           # destination index of the floor (pattern lines are 0..4)
    MARKER = 5          # floor-slot value of the starting-player marker
    NO_SEAT = 255       # marker value while the marker lies in the centre
    EMPTY = 255         # colour of an empty pattern line or wall square
    TILING_BASE = 300   # move codes: draft (source*5 + colour)*6 + dest; tiling 300 + line*5 + column
    MAX_MOVES = 300

cdef enum Phase:
    DRAFT = 0
    TILING = 1
    REFILL = 2
    OVER = 3

cdef struct Board:
    int32_t score
    uint8_t line_colour[5]     # EMPTY when the line holds nothing
    uint8_t line_count[5]
    uint8_t row_mask[5]        # bit c: column c of that row holds a tile
    uint8_t col_mask[5]        # bit r: row r of that column holds a tile
    uint8_t row_colours[5]     # bit c: colour c is in that row
    uint8_t col_colours[5]     # bit c: colour c is in that column
    uint8_t colour_count[5]    # tiles of each colour on the wall
    uint8_t cell[25]           # colour per square (row*5 + column), EMPTY if none
    uint8_t floor[7]           # slot contents: a colour, or MARKER
    uint8_t floor_n
    int16_t round_points       # wall points scored since the round's deal (or since load)
    int16_t round_penalty      # what the floor took off the score at the last round's end
    int16_t bonus              # end-of-game bonus points (0 until the game is over)
    uint64_t accept            # byte c, bit k: pattern line k may take colour c (kept by set_line)

cdef struct State:
    uint8_t players
    uint8_t factories
    uint8_t gray
    uint8_t phase
    uint8_t to_move
    uint8_t opener
    uint8_t marker             # NO_SEAT while in the centre, else the holder's seat
    int32_t round
    int32_t remaining          # tiles left in factories and centre
    uint8_t source[10][5]      # tiles per colour: factories 0..8, then the centre (CENTRE)
    uint16_t holders[5]        # bit i: source i holds that colour
    uint8_t bag[5]
    uint8_t lid[5]
    Board boards[4]

cdef struct Rng:
    uint64_t s

cdef struct Facts:
    # What one move does, as the records give it (read before the move is applied).
    int colour                 # the colour drafted, or the tiling line's colour
    int taken                  # tiles taken from the source; -1 for a tiling move
    int to_floor               # tiles that do not fit the pattern line (those past a full floor too)
    bint marker                # whether the move takes the starting-player marker

# SELECT[m][k]: index of the k-th lowest set bit of a 10-bit mask (k < POPCOUNT[m]). Random play
# picks "the k-th source holding a colour" and "the k-th destination taking it" with k random: a
# loop clearing k low bits has a random trip count, and so a mispredicted exit on nearly every
# move; one load from this 10 KB table has no branch at all.
cdef uint8_t SELECT[1024][10]  # filled once when engine._core is imported

# Tables every module that cimports this file compiles in as constants (engine._core checks them
# against their definitions when imported): RUN[mask][pos], the length of the run of set bits
# through bit pos of a 5-bit mask; POPCOUNT[m], the set bits of a 10-bit mask; SPREAD[m], bit c of
# a 5-bit mask moved to bit 8*c (a 5x5 bit transpose, one row at a time).
cdef extern from *:
    """
    static const uint8_t azul_run[32][5] = {
        {0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {0, 1, 0, 0, 0}, {2, 2, 0, 0, 0},
        {0, 0, 1, 0, 0}, {1, 0, 1, 0, 0}, {0, 2, 2, 0, 0}, {3, 3, 3, 0, 0},
        {0, 0, 0, 1, 0}, {1, 0, 0, 1, 0}, {0, 1, 0, 1, 0}, {2, 2, 0, 1, 0},
        {0, 0, 2, 2, 0}, {1, 0, 2, 2, 0}, {0, 3, 3, 3, 0}, {4, 4, 4, 4, 0},
        {0, 0, 0, 0, 1}, {1, 0, 0, 0, 1}, {0, 1, 0, 0, 1}, {2, 2, 0, 0, 1},
        {0, 0, 1, 0, 1}, {1, 0, 1, 0, 1}, {0, 2, 2, 0, 1}, {3, 3, 3, 0, 1},
        {0, 0, 0, 2, 2}, {1, 0, 0, 2, 2}, {0, 1, 0, 2, 2}, {2, 2, 0, 2, 2},
        {0, 0, 3, 3, 3}, {1, 0, 3, 3, 3}, {0, 4, 4, 4, 4}, {5, 5, 5, 5, 5},
    };
    #define AZUL_P2(n) n, n + 1, n + 1, n + 2
    #define AZUL_P4(n) AZUL_P2(n), AZUL_P2(n + 1), AZUL_P2(n + 1), AZUL_P2(n + 2)
    #define AZUL_P6(n) AZUL_P4(n), AZUL_P4(n + 1), AZUL_P4(n + 1), AZUL_P4(n + 2)
    #define AZUL_P8(n) AZUL_P6(n), AZUL_P6(n + 1), AZUL_P6(n + 1), AZUL_P6(n + 2)
    static const uint8_t azul_popcount[1024] = {
        AZUL_P8(0), AZUL_P8(1), AZUL_P8(1), AZUL_P8(2)
    };
    static const uint64_t azul_spread[32] = {
        0x0ULL, 0x1ULL, 0x100ULL, 0x101ULL, 0x10000ULL, 0x10001ULL, 0x10100ULL, 0x10101ULL,
        0x1000000ULL, 0x1000001ULL, 0x1000100ULL, 0x1000101ULL, 0x1010000ULL, 0x1010001ULL, 0x1010100ULL, 0x1010101ULL,
        0x100000000ULL, 0x100000001ULL, 0x100000100ULL, 0x100000101ULL, 0x100010000ULL, 0x100010001ULL, 0x100010100ULL, 0x100010101ULL,
        0x101000000ULL, 0x101000001ULL, 0x101000100ULL, 0x101000101ULL, 0x101010000ULL, 0x101010001ULL, 0x101010100ULL, 0x101010101ULL,
    };
    """
    const uint8_t RUN "azul_run"[32][5]
    const uint8_t POPCOUNT "azul_popcount"[1024]
    const uint64_t SPREAD "azul_spread"[32]

# The floor's penalty for its first n occupied slots (1, 1, 2, 2, 2, 3, 3 by slot), and the
# one-word view of the floor: Board.floor[7] and Board.floor_n sit in one aligned 8-byte word
# (byte 7 is floor_n, checked when engine._core is imported), so floor_push updates both with one
# load and one store, no loop and no branch. Two byte stores followed by a wide load of the same
# word would stall store forwarding, so every floor write goes through it.
cdef extern from *:
    """
    #include <string.h>
    #if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    #error "engine/_core.pxd: floor_push assumes a little-endian machine"
    #endif
    static const int32_t azul_floor_cost[8] = {0, 1, 2, 4, 6, 8, 11, 14};
    static inline uint64_t azul_load8(const void *p) { uint64_t w; memcpy(&w, p, 8); return w; }
    static inline void azul_store8(void *p, uint64_t w) { memcpy(p, &w, 8); }
    """
    const int32_t FLOOR_COST "azul_floor_cost"[8]
    uint64_t azul_load8(const void* p) noexcept nogil
    void azul_store8(void* p, uint64_t w) noexcept nogil

# ---------------------------------------------------------------- the state machine (engine/_core.pyx)

cdef void state_init(State* s, int players, bint gray) noexcept nogil
cdef int deal_random(State* s, Rng* rng) noexcept nogil
cdef void end_game(State* s) noexcept nogil
cdef int gen_moves(const State* s, int* out) noexcept nogil
cdef int check_move(const State* s, int code) noexcept nogil
cdef void apply_move(State* s, int code) noexcept nogil
cdef void end_draft(State* s) noexcept nogil
cdef int random_move(const State* s, Rng* rng) noexcept nogil
cdef uint64_t rng_next(Rng* r) noexcept nogil
cdef uint32_t rng_below(Rng* r, uint32_t n) noexcept nogil

# ---------------------------------------------------------------- the wall

cdef inline int colour_column(int row, int c) noexcept nogil:
    """The coloured wall's column for colour c in row `row`."""
    return (c + row) % 5

cdef inline int placement_points(int row_mask, int col_mask, int row, int col) noexcept nogil:
    """Points of a tile at (row, col), given its row's and column's masks with the tile in."""
    cdef int h = RUN[row_mask][col]
    cdef int v = RUN[col_mask][row]
    cdef int points = (h if h > 1 else 0) + (v if v > 1 else 0)
    return points if points else 1

cdef inline int tile_points(const Board* b, int row, int col) noexcept nogil:
    """Points a tile placed now at the empty square (row, col) of b's wall would score."""
    return placement_points(b.row_mask[row] | (1 << col), b.col_mask[col] | (1 << row), row, col)

cdef inline void place(Board* b, int row, int col, int c) noexcept nogil:
    """Put a tile of colour c on the wall and score it at once (score and round_points)."""
    cdef int points = tile_points(b, row, col)
    b.row_mask[row] |= 1 << col
    b.col_mask[col] |= 1 << row
    b.row_colours[row] |= 1 << c
    b.col_colours[col] |= 1 << c
    b.colour_count[c] += 1
    b.cell[row * 5 + col] = c
    b.score += points
    b.round_points += points

cdef inline int free_columns(const Board* b, int row, int c) noexcept nogil:
    """Bit col set when the gray wall square (row, col) may take colour c."""
    cdef int col, taken = b.row_mask[row]
    if (b.row_colours[row] >> c) & 1:
        return 0
    for col in range(5):    # no branch per column: random walls would mispredict it
        taken |= ((b.col_colours[col] >> c) & 1) << col
    return ~taken & 31

cdef inline int count_of(const uint8_t* v, int full) noexcept nogil:
    """How many of the five values v[0..4] equal `full`."""
    return (v[0] == full) + (v[1] == full) + (v[2] == full) + (v[3] == full) + (v[4] == full)

cdef inline int complete_rows(const Board* b) noexcept nogil:
    return count_of(b.row_mask, 31)

cdef inline int complete_columns(const Board* b) noexcept nogil:
    return count_of(b.col_mask, 31)

cdef inline int complete_colours(const Board* b) noexcept nogil:
    return count_of(b.colour_count, 5)

cdef inline int end_bonus(const Board* b) noexcept nogil:
    """The end-of-game bonus of a wall: 2 a complete row, 7 a column, 10 a colour."""
    return 2 * complete_rows(b) + 7 * complete_columns(b) + 10 * complete_colours(b)

cdef inline void ranks(const State* s, int* out) noexcept nogil:
    """out[p]: seat p's rank (engine.rules.ranks): 1 + the seats with a better (score, complete rows)."""
    cdef int p, q, rows[4]
    for p in range(s.players):
        rows[p] = complete_rows(&s.boards[p])
    for p in range(s.players):
        out[p] = 1
        for q in range(s.players):
            out[p] += (s.boards[q].score > s.boards[p].score
                       or (s.boards[q].score == s.boards[p].score and rows[q] > rows[p]))

# ---------------------------------------------------------------- the floor

cdef inline int floor_cost(int slots) noexcept nogil:
    """The penalty of the first `slots` occupied floor slots (0..7)."""
    return FLOOR_COST[slots]

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

# ---------------------------------------------------------------- pattern lines and moves

cdef inline int dest_mask(const Board* b, int c) noexcept nogil:
    """Bit d set when destination d (line 0..4, floor 5) may take colour c (gen_moves' order: d up)."""
    return ((b.accept >> (8 * c)) & 31) | (1 << FLOOR)

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

cdef inline Facts move_facts(const State* s, int code) noexcept nogil:
    """What the legal move `code` of the seat to move does (call before applying it)."""
    cdef Facts f
    cdef const Board* b = &s.boards[s.to_move]
    cdef int src, d, put = 0
    if code >= TILING_BASE:
        f.colour, f.taken, f.to_floor, f.marker = b.line_colour[(code - TILING_BASE) // 5], -1, 0, False
        return f
    src, f.colour, d = code // 30, (code // 6) % 5, code % 6
    f.taken = s.source[src][f.colour]
    if d != FLOOR:
        put = d + 1 - b.line_count[d]
        if put > f.taken:
            put = f.taken
    f.to_floor = f.taken - put
    f.marker = src == CENTRE and s.marker == NO_SEAT
    return f

cdef inline void apply_draft(State* s, int src, int c, int d) noexcept nogil:
    """Take colour c from source src to destination d (line 0..4 or FLOOR), then move on.

    Written without branches on the move: in random play whether the source is the centre, the
    destination the floor, or tiles overflow is random, and each such branch mispredicts often.
    """
    cdef int n, o, put, factory = src != CENTRE
    cdef int keep[5]
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

# ---------------------------------------------------------------- dealing and random draws

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

cdef inline void index_sources(State* s) noexcept nogil:
    """Recompute which sources hold each colour (State.holders). No branch per source: after a
    random deal whether a factory holds a colour is random, and a branch would mispredict."""
    cdef int i, c
    for c in range(5):
        s.holders[c] = 0
        for i in range(10):
            s.holders[c] |= (s.source[i][c] != 0) << i

cdef inline void start_round(State* s, int dealt) noexcept nogil:
    """The deal is in the factories (`dealt` tiles): the draft begins, or the game ends if none."""
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

cdef inline int draft_weights(const State* s, const Board* b, int* dests, int* ways, int* upto) noexcept nogil:
    """Per colour c: dests[c], the destinations taking it (bit d); ways[c], how many; upto[c], the
    legal (source, colour, destination) triples of colours 0..c. Returns the total."""
    cdef int c, total = 0
    for c in range(5):
        dests[c] = dest_mask(b, c)
        ways[c] = POPCOUNT[dests[c]]
        total += POPCOUNT[s.holders[c]] * ways[c]
        upto[c] = total
    return total


cdef class Core:
    """One position (engine.GameState wraps it). Other Cython modules read and play on `s`."""
    cdef State s
