# The compiled core of the engine: the state in C arrays, move generation, apply, tiling, scoring,
# dealing and random playouts. Bots cimport this to run their hot loops in C.
from libc.stdint cimport uint8_t, uint16_t, int16_t, int32_t, uint32_t, uint64_t

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

cdef inline int dest_mask(const Board* b, int c) noexcept nogil:
    """Bit d set when destination d (line 0..4, floor 5) may take colour c (gen_moves' order: d up)."""
    return ((b.accept >> (8 * c)) & 31) | (1 << FLOOR)

cdef void state_init(State* s, int players, bint gray) noexcept nogil
cdef int deal_random(State* s, Rng* rng) noexcept nogil
cdef int gen_moves(const State* s, int* out) noexcept nogil
cdef int check_move(const State* s, int code) noexcept nogil
cdef void apply_move(State* s, int code) noexcept nogil
cdef int random_move(const State* s, Rng* rng) noexcept nogil
cdef int placement_points(int row_mask, int col_mask, int row, int col) noexcept nogil
cdef int floor_cost(int slots) noexcept nogil
cdef uint64_t rng_next(Rng* r) noexcept nogil
cdef uint32_t rng_below(Rng* r, uint32_t n) noexcept nogil


cdef class Core:
    """One position (engine.GameState wraps it). Other Cython modules read and play on `s`."""
    cdef State s
