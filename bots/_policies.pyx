# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The greedy and heuristic policies and the position evaluation, in C over the engine's State.

Everything above `Policy` is nogil C with no allocation, so MCTS rollouts can call it
(cimport greedy_move, heuristic_move, evaluate, default_weights from bots._policies; the
``_pick`` forms choose among moves already generated).
docs/bots.md describes what each policy values; tests/test_policies.py checks it.
"""
from libc.string cimport memcpy, memset
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from engine._core cimport (
    State, Board, Rng, Core, gen_moves, apply_move, rng_below, tile_points, place, free_columns, colour_column,
    floor_cost, end_bonus, complete_rows, dest_mask, CENTRE, FLOOR, NO_SEAT, TILING_BASE, MAX_MOVES, DRAFT,
    TILING, REFILL, OVER,
)

cdef inline int POP(int m) noexcept nogil:
    """Set bits of a 5-bit mask."""
    return (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1) + ((m >> 4) & 1)

cdef double EPS = 1e-9

# ---------------------------------------------------------------- the wall after this round's tiling
# A projection is a copy of the board with this round's complete lines tiled by the core's own
# `place`: its round_points are the wall points the tiling scores, its floor_n the floor's slots
# after it (gray lines with no square fall), capped at 7.

cdef inline void wall_of(const Board* b, Board* w) noexcept nogil:
    w[0] = b[0]
    w.round_points = 0

cdef int best_column(const Board* w, int row, int c) noexcept nogil:
    """Gray wall: the legal column scoring most now (then the fuller column, then the leftmost); -1 if none."""
    cdef int col, key, best = -1, best_key = -1, mask = free_columns(w, row, c)
    for col in range(5):
        if (mask >> col) & 1:
            key = tile_points(w, row, col) * 8 + POP(w.col_mask[col])
            if key > best_key:
                best_key = key
                best = col
    return best

cdef inline int line_column(const Board* w, bint gray, int k, int c) noexcept nogil:
    return best_column(w, k, c) if gray else colour_column(k, c)

cdef inline int project(const Board* b, bint gray, Board* w) noexcept nogil:
    """The wall after tiling the board's complete lines top to bottom (gray: best column each).

    Returns the tiles of gray lines with no legal column, which fall to the floor (``w.floor_n``
    counts them, capped at 7)."""
    return project_with(b, gray, w, -1, 0)

cdef inline int tile_line(const Board* b, bint gray, Board* w, int k, int line, int colour) noexcept nogil:
    """project_with's step for line k: tile it if complete; return the tiles that fall (gray)."""
    cdef int c, col
    if k == line or b.line_count[k] == k + 1:
        c = colour if k == line else b.line_colour[k]
        col = line_column(w, gray, k, c)
        if col < 0:
            return k + 1
        place(w, k, col, c)
    return 0

cdef int project_with(const Board* b, bint gray, Board* w, int line, int colour) noexcept nogil:
    """``project`` of the board with its pattern line ``line`` complete in ``colour`` (-1: as it is)."""
    cdef int falls
    wall_of(b, w)
    # line by line with k a constant in each step, which the compiler folds (a loop over k it
    # would not unroll, with the core's place inlined in it)
    falls = tile_line(b, gray, w, 0, line, colour)
    falls += tile_line(b, gray, w, 1, line, colour)
    falls += tile_line(b, gray, w, 2, line, colour)
    falls += tile_line(b, gray, w, 3, line, colour)
    falls += tile_line(b, gray, w, 4, line, colour)
    w.floor_n = b.floor_n + falls if b.floor_n + falls < 7 else 7
    return falls

cdef inline int round_value(const Board* b, bint gray) noexcept nogil:
    """Wall points this round's tiling makes certain, minus the floor's penalty."""
    cdef Board w
    project(b, gray, &w)
    return w.round_points - floor_cost(w.floor_n)

# ---------------------------------------------------------------- greedy

cdef struct Drafts:
    # The seat to move's draft moves valued as greedy values them, without a board copy each: a
    # draft changes the tiling only by completing its line d in colour c, so the projected wall
    # is the board's own (points0, falls0) or that of (d, c) complete, worked out once per move.
    const State* s
    const Board* b
    int base             # round_value of the board
    int points0, falls0  # its projection
    int points[5][5]     # [d][c]: the projection's points with line d complete in colour c
    int falls[5][5]
    uint32_t known       # bit d * 5 + c: points/falls [d][c] worked out

cdef void drafts_init(Drafts* x, const State* s) noexcept nogil:
    cdef Board w
    x.s, x.b = s, &s.boards[s.to_move]
    x.falls0 = project(x.b, s.gray, &w)
    x.points0 = w.round_points
    x.base = w.round_points - floor_cost(w.floor_n)
    x.known = 0

cdef inline int all_to_floor(const Drafts* x, int src, int tiles) noexcept nogil:
    """The floor's slots filled if all ``tiles`` taken from ``src`` (and the marker, the first
    time the centre is taken) went to the floor."""
    return x.b.floor_n + tiles + (src == CENTRE and x.s.marker == NO_SEAT)

cdef inline int draft_value(Drafts* x, int code, int* placed) noexcept nogil:
    """Greedy's value of a draft move: the change in round_value it causes."""
    cdef int src = code // 30, c = (code // 6) % 5, n = x.s.source[src][c]
    return value_of(x, c, code % 6, n, all_to_floor(x, src, n), placed)

cdef inline int value_of(Drafts* x, int c, int d, int n, int floor_n, int* placed) noexcept nogil:
    """draft_value of taking ``n`` tiles of colour ``c`` to destination ``d``; ``floor_n``:
    all_to_floor of the move."""
    cdef const Board* b = x.b
    cdef Board w
    cdef int put_n = 0, points = x.points0, falls = x.falls0
    if d != FLOOR:
        put_n = d + 1 - b.line_count[d]
        if put_n > n:
            put_n = n
        floor_n -= put_n
        if b.line_count[d] + put_n == d + 1:
            if not (x.known >> (d * 5 + c)) & 1:
                x.falls[d][c] = project_with(b, x.s.gray, &w, d, c)
                x.points[d][c] = w.round_points
                x.known |= 1U << (d * 5 + c)
            points, falls = x.points[d][c], x.falls[d][c]
    floor_n += falls
    placed[0] = put_n
    return points - floor_cost(floor_n if floor_n < 7 else 7) - x.base

cdef inline int greedy_value(Drafts* x, int code, int* placed) noexcept nogil:
    if code >= TILING_BASE:
        placed[0] = 0
        return tile_points(x.b, (code - TILING_BASE) // 5, (code - TILING_BASE) % 5)
    return draft_value(x, code, placed)

cdef int greedy_move(const State* s, Rng* rng) noexcept nogil:
    """Best immediate value; ties: more tiles into pattern lines, then uniformly at random."""
    cdef int moves[MAX_MOVES]
    cdef int n
    if s.phase == DRAFT:
        return greedy_draft(s, rng, &n)
    return greedy_pick(s, rng, moves, gen_moves(s, moves))

cdef inline void consider(int code, int key, int* best_key, int* choice, int* ties, Rng* rng) noexcept nogil:
    """One candidate of greedy's choice: the best key so far, ties broken uniformly at random."""
    if key > best_key[0]:
        best_key[0], choice[0], ties[0] = key, code, 1
    elif key == best_key[0]:
        ties[0] += 1
        if rng_below(rng, ties[0]) == 0:
            choice[0] = code

cdef int greedy_pick(const State* s, Rng* rng, const int* moves, int n) noexcept nogil:
    """greedy_move's choice among ``moves[:n]`` (legal moves, in generation order)."""
    cdef int i, placed = 0, best_key = -1 << 30, choice = -1, ties = 0
    cdef Drafts x
    drafts_init(&x, s)
    for i in range(n):
        consider(moves[i], greedy_value(&x, moves[i], &placed) * 16 + placed, &best_key, &choice, &ties, rng)
    return choice

cdef int greedy_draft(const State* s, Rng* rng, int* count) noexcept nogil:
    """greedy_move in the draft phase without a move list: the same choice, and the same draws,
    as greedy_pick over gen_moves' list, whose order (source, colour, destination) it walks.
    ``count[0]``: how many legal moves there were."""
    cdef int i, src, c, d, mask, tiles, floor_n, n = 0, placed = 0, best_key = -1 << 30, choice = -1, ties = 0
    cdef Drafts x
    drafts_init(&x, s)
    for i in range(s.factories + 1):
        src = CENTRE if i == s.factories else i
        for c in range(5):
            tiles = s.source[src][c]
            if tiles:
                mask = dest_mask(x.b, c)
                floor_n = all_to_floor(&x, src, tiles)
                for d in range(6):
                    if (mask >> d) & 1:
                        consider((src * 5 + c) * 6 + d, value_of(&x, c, d, tiles, floor_n, &placed) * 16 + placed,
                                 &best_key, &choice, &ties, rng)
                        n += 1
    count[0] = n
    return choice

cdef void draft_values(const State* s, const int* moves, int n, int* out) noexcept nogil:
    """greedy's value of each of ``moves[:n]`` (legal moves of the seat to move), as greedy_pick
    ranks them: a draft's change in round_value, a tiling move's points."""
    cdef int i, placed = 0
    cdef Drafts x
    drafts_init(&x, s)
    for i in range(n):
        out[i] = greedy_value(&x, moves[i], &placed)

# ---------------------------------------------------------------- the evaluation

cdef int best_draft(const State* s) noexcept nogil:
    """The best greedy value the seat to move can get now (its best reply, for denial)."""
    cdef int moves[MAX_MOVES]
    cdef int n = gen_moves(s, moves), i, v, placed = 0, best = -1 << 30
    cdef Drafts x
    drafts_init(&x, s)
    for i in range(n):
        v = draft_value(&x, moves[i], &placed)
        if v > best:
            best = v
    return best if n else 0

cdef inline double sq(double x) noexcept nogil:
    return x * x

cdef inline bint opens_next(const State* s, int seat) noexcept nogil:
    if s.phase == REFILL:
        return s.to_move == seat
    return s.marker == seat

cdef double board_value(const State* s, int p, const Board* w, bint ending, const int* now,
                        const int* later, const Weights* wt) noexcept nogil:
    """What seat p's board is worth in points: score, this round's tiling, and its prospects."""
    cdef const Board* b = &s.boards[p]
    cdef double v = b.score + w.round_points - floor_cost(w.floor_n), chance, p_now, capacity, share
    cdef int i, k, c, need, col
    if ending:      # the game ends with this round: the bonuses are certain, prospects worthless
        return v + end_bonus(w)
    for i in range(5):
        v += wt.row * 2 * sq(POP(w.row_mask[i]) / 5.0)
        v += wt.column * 7 * sq(POP(w.col_mask[i]) / 5.0)
        v += wt.colour_set * 10 * sq(w.colour_count[i] / 5.0)
    capacity = 0
    for k in range(5):
        if b.line_count[k] == k + 1:
            continue
        if b.line_count[k] == 0:
            capacity += k + 1
            continue
        c = b.line_colour[k]
        need = k + 1 - b.line_count[k]
        col = line_column(w, s.gray, k, c)
        if col < 0:     # gray: no square left for this colour, the line will fall to the floor
            v -= b.line_count[k]
            continue
        if now[c] >= need:
            capacity += need
        p_now = now[c] / (2.0 * need) if now[c] < 2 * need else 1.0
        chance = p_now + (1 - p_now) * wt.later * (1.0 if later[c] >= need else later[c] / <double>need)
        v += wt.line * chance * tile_points(w, k, col) * b.line_count[k] / (k + 1.0)
    if s.phase == DRAFT and s.remaining:
        share = s.remaining / <double>s.players
        if share > capacity:
            v -= wt.floor_risk * (share - capacity)
    if opens_next(s, p):
        v += wt.marker
    return v

cdef double position_value(const State* s, int seat, const Weights* wt, double denial,
                           double reply) noexcept nogil:
    """board_value of seat minus denial x the best opponent's (the next one's with reply x its
    best immediate move)."""
    cdef Board walls[4]
    cdef int now[5]
    cdef int later[5]
    cdef int p, c, i
    cdef bint ending = False
    cdef double mine = 0, best = -1e300, v
    if s.phase == OVER:
        for p in range(s.players):
            if p != seat and s.boards[p].score > best:
                best = s.boards[p].score
        return s.boards[seat].score - denial * best
    for c in range(5):
        later[c] = s.bag[c] + s.lid[c]
        now[c] = 0
        if s.phase == DRAFT:
            for i in range(10):
                now[c] += s.source[i][c]
    for p in range(s.players):
        project(&s.boards[p], s.gray, &walls[p])
        ending = ending or complete_rows(&walls[p]) > 0
    for p in range(s.players):
        v = board_value(s, p, &walls[p], ending, now, later, wt)
        if p == s.to_move and p != seat and s.phase == DRAFT:
            v += reply * best_draft(s)
        if p == seat:
            mine = v
        elif v > best:
            best = v
    return mine - denial * best

cdef double evaluate(const State* s, int seat, const Weights* w) noexcept nogil:
    return position_value(s, seat, w, 1.0, 0.0)

cdef double move_value(const State* s, int code, const Weights* w) noexcept nogil:
    cdef State t
    memcpy(&t, s, sizeof(State))
    apply_move(&t, code)
    return position_value(&t, s.to_move, w, w.denial, w.reply)

cdef int heuristic_move(const State* s, Rng* rng, const Weights* w) noexcept nogil:
    """The move whose resulting position_value is best; exact ties uniformly at random."""
    cdef int moves[MAX_MOVES]
    return heuristic_pick(s, rng, w, moves, gen_moves(s, moves))

cdef int heuristic_pick(const State* s, Rng* rng, const Weights* w, const int* moves,
                        int n) noexcept nogil:
    """heuristic_move's choice among ``moves[:n]`` (legal moves, in generation order)."""
    cdef int i, choice = -1, ties = 0
    cdef double v, best = -1e300
    for i in range(n):
        v = move_value(s, moves[i], w)
        if v > best + EPS:
            best, choice, ties = v, moves[i], 1
        elif v > best - EPS:
            ties += 1
            if rng_below(rng, ties) == 0:
                choice = moves[i]
    return choice

cdef void default_weights(Weights* w) noexcept nogil:
    w.line = 0.5
    w.later = 0.2
    w.column = 0.5
    w.row = 0.5
    w.colour_set = 0.5
    w.floor_risk = 1.0
    w.marker = 1.5
    w.denial = 1.0
    w.reply = 1.25

# ---------------------------------------------------------------- plans (bots/intervention.py)
# A plan intervention adds to each move's value, where greedy and heuristic rank their moves (and
# MCTS at its root), a bias in points: the change the move makes to the mover's plan_potential,
# plus deny x the greedy value it takes from the next seat's best draft (docs/bots.md, "Plans").

cdef double plan_potential(const State* s, int p, const Plan* plan) noexcept nogil:
    """Seat p's progress towards the bonuses, in points. For each row, column and colour, t is
    the wall tiles towards it once this round's complete lines are tiled, plus each partly filled
    line's share (count / length) towards its own row, column and colour; each counts
    weight x t * t / 5, so a complete bonus counts 5 x weight and a bonus's later tiles more
    than its first (the 5th tile 9/5 x weight, the 1st 1/5)."""
    cdef const Board* b = &s.boards[p]
    cdef Board w
    cdef double rows[5]
    cdef double cols[5]
    cdef double colours[5]
    cdef double f, v = 0
    cdef int i, k, c, col
    project(b, s.gray, &w)
    for i in range(5):
        rows[i] = POP(w.row_mask[i])
        cols[i] = POP(w.col_mask[i])
        colours[i] = w.colour_count[i]
    for k in range(5):
        if 0 < b.line_count[k] < k + 1:
            c = b.line_colour[k]
            col = line_column(&w, s.gray, k, c)
            if col >= 0:
                f = b.line_count[k] / (k + 1.0)
                rows[k] += f
                cols[col] += f
                colours[c] += f
    for i in range(5):
        v += plan.rows * rows[i] * rows[i] + plan.columns * cols[i] * cols[i] + plan.colours * colours[i] * colours[i]
    return v / 5

cdef double next_best(const State* s, int mover) noexcept nogil:
    """The best greedy value of a draft for the seat after ``mover`` in s, as if it moved now (0
    when the draft is over)."""
    cdef State t
    if s.phase != DRAFT:
        return 0
    memcpy(&t, s, sizeof(State))
    t.to_move = (mover + 1) % s.players
    return best_draft(&t)

cdef inline bint plans_progress(const Plan* plan) noexcept nogil:
    return plan.colours != 0 or plan.columns != 0 or plan.rows != 0

cdef void plan_start(const State* s, const Plan* plan, double* before) noexcept nogil:
    """What plan_bias compares each move's position with, worked out once per decision: the
    mover's plan_potential (``before[0]``) and the next seat's best draft value (``before[1]``)."""
    before[0] = plan_potential(s, s.to_move, plan) if plans_progress(plan) else 0
    before[1] = next_best(s, s.to_move) if plan.deny != 0 and s.phase == DRAFT else 0

cdef double plan_bias(const State* s, int code, const Plan* plan, const double* before) noexcept nogil:
    """The plan's bias of move ``code`` for the seat to move, in points: the change in its
    plan_potential, plus deny x (the next seat's best draft value before the move minus after);
    ``before``: plan_start's of ``s``."""
    cdef State t
    cdef int me = s.to_move
    cdef double v = 0
    memcpy(&t, s, sizeof(State))
    apply_move(&t, code)
    if plans_progress(plan):
        v = plan_potential(&t, me, plan) - before[0]
    if plan.deny != 0 and s.phase == DRAFT:
        v += plan.deny * (before[1] - next_best(&t, me))
    return v

cdef int planned_pick(const State* s, Rng* rng, bint greedy, const Weights* w, const Plan* plan,
                      const int* moves, int n) noexcept nogil:
    """greedy_pick's (``greedy``) or heuristic_pick's choice among ``moves[:n]`` with each move's
    plan_bias added to its value (both are points), ties broken as each breaks them: with every
    weight 0, the same choice and generator draws."""
    cdef int i, placed = 0, best_placed = -1, choice = -1, ties = 0
    cdef double v, best = -1e300
    cdef double before[2]
    cdef Drafts x
    drafts_init(&x, s)
    plan_start(s, plan, before)
    for i in range(n):
        if greedy:
            v = greedy_value(&x, moves[i], &placed)
        else:
            v = move_value(s, moves[i], w)
        v += plan_bias(s, moves[i], plan, before)
        if v > best + EPS or (v > best - EPS and placed > best_placed):
            best, best_placed, choice, ties = v, placed, moves[i], 1
        elif v > best - EPS and placed == best_placed:
            ties += 1
            if rng_below(rng, ties) == 0:
                choice = moves[i]
    return choice

# ---------------------------------------------------------------- Python entry points

cdef int keep_allowed(int* moves, int n, allowed) except -1:
    """Keep, in order, the moves of ``moves[:n]`` whose code is in ``allowed``; their count
    (a ValueError when none is left)."""
    cdef uint8_t mask[TILING_BASE + 25]
    cdef int i, kept = 0
    memset(mask, 0, sizeof(mask))
    for code in allowed:
        if 0 <= code < TILING_BASE + 25:
            mask[<int>code] = 1
    for i in range(n):
        if mask[moves[i]]:
            moves[kept] = moves[i]
            kept += 1
    if kept == 0:
        raise ValueError("no legal move is allowed")
    return kept


def default_weight_values():
    """The heuristic's default weights, by name."""
    cdef Weights w
    default_weights(&w)
    return dict(w)

WEIGHT_NAMES = tuple(default_weight_values())

cdef class Policy:
    """greedy or heuristic over a Core: its own generator (seeded) for tie-breaks, and weights."""
    cdef Rng rng
    cdef Weights w
    cdef readonly str kind
    cdef bint greedy

    def __init__(self, str kind="greedy", seed=0, weights=None):
        if kind not in ("greedy", "heuristic"):
            raise ValueError(f"policy must be 'greedy' or 'heuristic', not {kind!r}")
        values = default_weight_values()
        for name, value in (weights or {}).items():
            if name not in values:
                raise ValueError(f"unknown weight {name!r} (weights: {', '.join(WEIGHT_NAMES)})")
            values[name] = float(value)
        self.kind = kind
        self.greedy = kind == "greedy"
        self.w = values
        self.reseed(seed)

    def reseed(self, seed):
        self.rng.s = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)

    @property
    def weights(self):
        return dict(self.w)

    def choose(self, state, allowed=None, plan=None):
        """The chosen move's code for the seat to move of a GameState, which is only read.

        ``allowed``: move codes; the policy then chooses as itself among the legal moves in it
        (a ValueError when none is legal). None: among every legal move (the same choice and
        generator stream as every allowed). ``plan``: a plan intervention's weights (colours,
        columns, rows, deny) in points, each move's plan bias added to its value."""
        cdef Core core = state._core
        cdef int moves[MAX_MOVES]
        cdef int n, code
        cdef Plan p
        if core.s.phase != DRAFT and core.s.phase != TILING:
            raise ValueError("no move to choose: the position is not in phase draft or tiling")
        n = gen_moves(&core.s, moves)
        if allowed is not None:
            n = keep_allowed(moves, n, allowed)
        if plan is not None:
            p = plan_of(plan)
            with nogil:
                code = planned_pick(&core.s, &self.rng, self.greedy, &self.w, &p, moves, n)
            return code
        with nogil:
            if self.greedy:
                code = greedy_pick(&core.s, &self.rng, moves, n)
            else:
                code = heuristic_pick(&core.s, &self.rng, &self.w, moves, n)
        return code

    def values(self, state):
        """{code: value} of every legal move of a GameState, as this policy ranks them (greedy: points)."""
        cdef Core core = state._core
        cdef int moves[MAX_MOVES]
        cdef int n = gen_moves(&core.s, moves), placed = 0
        cdef Drafts x
        drafts_init(&x, &core.s)
        if self.greedy:
            return {moves[i]: greedy_value(&x, moves[i], &placed) for i in range(n)}
        return {moves[i]: move_value(&core.s, moves[i], &self.w) for i in range(n)}

    def evaluate(self, state, int seat):
        """evaluate(): a GameState's value for seat, in points (MCTS uses it at a cut-off)."""
        cdef Core core = state._core
        if not 0 <= seat < core.s.players:
            raise ValueError(f"seat must be 0..{core.s.players - 1}, not {seat}")
        return evaluate(&core.s, seat, &self.w)


cdef Plan plan_of(weights) except *:
    """A Plan from (colours, columns, rows, deny)."""
    cdef Plan p
    p.colours, p.columns, p.rows, p.deny = [float(x) for x in weights]
    return p


def plan_biases(state, weights):
    """{code: plan bias in points} of every legal move of a GameState, for the seat to move, under
    a plan's weights (colours, columns, rows, deny): what a plan adds to each move's value."""
    cdef Core core = state._core
    cdef int moves[MAX_MOVES]
    cdef int n = gen_moves(&core.s, moves)
    cdef Plan p = plan_of(weights)
    cdef double before[2]
    plan_start(&core.s, &p, before)
    return {moves[i]: plan_bias(&core.s, moves[i], &p, before) for i in range(n)}
