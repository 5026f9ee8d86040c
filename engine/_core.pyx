# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled core: the rules' state machine over one C struct per position, and `Core`.

The small rules it shares with the other compiled modules (placing and scoring a tile, the
floor, pattern lines, a draft move, the move facts) are `cdef inline` in engine/_core.pxd; this
module holds the rest of the state machine (setup, dealing, move generation and checking, the
round's end, the game's end), the seeded generator, and the Python-facing `Core`. Random
playouts are engine/_playouts.pyx. Validation, notation and JSON live in plain Python
(engine/state.py, notation.py, position.py); this module trusts its callers except in
`check_move`, which the public API calls before `apply_move`. The differential tests compare
everything here with engine/reference.py.
"""
from libc.string cimport memcpy, memset
from cpython.bytes cimport PyBytes_FromStringAndSize, PyBytes_AS_STRING, PyBytes_GET_SIZE

# SELECT is declared in engine/_core.pxd (playouts read it there) and filled here, once; RUN,
# POPCOUNT and SPREAD are constants there, checked here against their definitions.

cdef void _init_tables() except *:
    cdef int m, p, k, lo, hi
    cdef uint64_t spread
    for m in range(1024):
        memset(SELECT[m], 0, 10)
        k = 0
        for p in range(10):
            if (m >> p) & 1:
                SELECT[m][k] = p
                k += 1
        if POPCOUNT[m] != k:
            raise ImportError(f"engine._core: POPCOUNT[{m}] is {POPCOUNT[m]}, not {k}")
    for m in range(32):
        spread = 0
        for p in range(5):
            if (m >> p) & 1:
                spread |= (<uint64_t>1) << (8 * p)
            lo = p
            while lo > 0 and (m >> (lo - 1)) & 1:
                lo -= 1
            hi = p
            while hi < 4 and (m >> (hi + 1)) & 1:
                hi += 1
            if RUN[m][p] != ((hi - lo + 1) if (m >> p) & 1 else 0):
                raise ImportError(f"engine._core: RUN[{m}][{p}] is wrong")
        if SPREAD[m] != spread:
            raise ImportError(f"engine._core: SPREAD[{m}] is wrong")

_init_tables()


cdef Board _layout
# floor_push's one-word view of the floor (engine/_core.pxd) needs this layout of Board.
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

# ---------------------------------------------------------------- moves

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


# ---------------------------------------------------------------- tiling and scoring

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
                place(b, k, colour_column(k, c), c)
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
        b.round_penalty = floor_cost(b.floor_n) if floor_cost(b.floor_n) < b.score else b.score
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
        b.bonus = end_bonus(b)
        b.score += b.bonus
    s.phase = OVER

# ---------------------------------------------------------------- random play
# ---------------------------------------------------------------- random play

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
        cdef int seat = self.s.to_move
        cdef Facts f
        if err:
            return (err, seat, -1, 0, 0, False)
        f = move_facts(&self.s, code)
        apply_move(&self.s, code)
        return (0, seat, f.colour, None if f.taken < 0 else f.taken, f.to_floor, f.marker)

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
    return {"floor_totals": [floor_cost(i) for i in range(8)],
            "placement": {(row, col, rm, cm): placement_points(rm, cm, row, col)
                          for row in range(5) for col in range(5) for rm in range(32) for cm in range(32)
                          if (rm >> col) & 1 and (cm >> row) & 1}}


def _core_from_bytes(bytes data):
    cdef Core core = Core.__new__(Core)
    if PyBytes_GET_SIZE(data) != sizeof(State):
        raise ValueError("pickled engine state has the wrong size (built by another engine version?)")
    memcpy(&core.s, PyBytes_AS_STRING(data), sizeof(State))
    return core


