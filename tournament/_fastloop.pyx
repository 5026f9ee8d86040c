# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""League games between built-in compiled bots, played whole in C (tournament/fastloop.py is the glue).

``play_games`` plays a batch of games with the engine's core and the bots' C policies and fills
preallocated column arrays for the four record tables: no Python object per move. It does
exactly what the Python referee does (tournament/game.py over engine/loop.py): the same deals
(round r dealt from ``round_seed(deal_seeds[g], r)``), the same bots' generators (greedy and heuristic:
the policy's Rng seeded with the game seed; random: Python's ``random.Random(seed).choice`` over
the legal moves, replicated with MT19937 here), the same facts per move and round.

A seat of kind CALLBACK (mcts) asks Python for its move (``act(game, seat, state) -> code``, a GameState),
with the GIL, once per move; its search itself runs in C.
"""
from libc.stdint cimport uint8_t, int32_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from engine._core cimport (Core, State, Board, Rng, Facts, DRAFT, REFILL, OVER, MAX_MOVES, state_init, deal_random,
                           gen_moves, apply_move, move_facts, ranks, complete_rows, complete_columns,
                           complete_colours)
from bots._policies cimport Weights, greedy_draft, greedy_pick, heuristic_pick
from tournament._seeds cimport MAX_ID, round_seed_of, bot_seed_of

from engine.state import GameState

cdef enum:
    KIND_RANDOM = 0
    KIND_GREEDY = 1
    KIND_HEURISTIC = 2
    KIND_CALLBACK = 3

KINDS = {"random": KIND_RANDOM, "greedy": KIND_GREEDY, "heuristic": KIND_HEURISTIC, "callback": KIND_CALLBACK}

# ---------------------------------------------------------------- Python's random.Random, in C
cdef struct MT:
    uint32_t mt[624]
    int mti

cdef void mt_init(MT* m, uint32_t s) noexcept nogil:
    cdef int i
    m.mt[0] = s
    for i in range(1, 624):
        m.mt[i] = 1812433253U * (m.mt[i - 1] ^ (m.mt[i - 1] >> 30)) + <uint32_t>i
    m.mti = 624

cdef void mt_seed(MT* m, uint64_t seed) noexcept nogil:
    """random.Random(seed) for 0 <= seed < 2**64: init_by_array over its 32-bit words."""
    cdef uint32_t key[2]
    cdef int n = 2 if seed >> 32 else 1, i = 1, j = 0, k
    key[0] = <uint32_t>seed
    key[1] = <uint32_t>(seed >> 32)
    mt_init(m, 19650218U)
    k = 624 if 624 > n else n
    while k:
        m.mt[i] = (m.mt[i] ^ ((m.mt[i - 1] ^ (m.mt[i - 1] >> 30)) * 1664525U)) + key[j] + <uint32_t>j
        i += 1
        j += 1
        if i >= 624:
            m.mt[0] = m.mt[623]
            i = 1
        if j >= n:
            j = 0
        k -= 1
    k = 623
    while k:
        m.mt[i] = (m.mt[i] ^ ((m.mt[i - 1] ^ (m.mt[i - 1] >> 30)) * 1566083941U)) - <uint32_t>i
        i += 1
        if i >= 624:
            m.mt[0] = m.mt[623]
            i = 1
        k -= 1
    m.mt[0] = 0x80000000U

cdef uint32_t mt_next(MT* m) noexcept nogil:
    cdef uint32_t y
    cdef int kk
    if m.mti >= 624:
        for kk in range(624):
            y = (m.mt[kk] & 0x80000000U) | (m.mt[(kk + 1) % 624] & 0x7fffffffU)
            m.mt[kk] = m.mt[(kk + 397) % 624] ^ (y >> 1) ^ (0x9908b0dfU if y & 1 else 0U)
        m.mti = 0
    y = m.mt[m.mti]
    m.mti += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9d2c5680U
    y ^= (y << 15) & 0xefc60000U
    y ^= y >> 18
    return y

cdef int mt_below(MT* m, int n) noexcept nogil:
    """random.Random._randbelow(n) for 1 <= n < 2**32 (getrandbits(n.bit_length()) until < n)."""
    cdef int k = 0, r
    while (n >> k) != 0:
        k += 1
    r = <int>(mt_next(m) >> (32 - k))
    while r >= n:
        r = <int>(mt_next(m) >> (32 - k))
    return r

def random_below(uint64_t seed, int n, int draws):
    """``draws`` values of random.Random(seed)._randbelow(n), from the C replica (for tests)."""
    cdef MT m
    mt_seed(&m, seed)
    return [mt_below(&m, n) for _ in range(draws)]

# ---------------------------------------------------------------- the loop
cdef struct Bot:
    int kind
    Rng rng
    MT mt
    Weights w

cdef struct Cols:
    # the output columns (see play_games), and how many rows of each are written
    int* m_g
    int* m_ply
    int* m_round
    int* m_seat
    int* m_code
    int* m_colour
    int* m_taken
    int* m_floor
    int* m_marker
    int* m_legal
    int* r_g
    int* r_round
    int* r_seat
    int* r_opener
    int* r_deal
    int* r_points
    int* r_penalty
    int* r_score
    int* g_rounds
    int* g_plies
    double* g_duration
    int* x_score     # [g * players + seat] from here on
    int* x_rank
    int* x_rows
    int* x_cols
    int* x_colours
    int* x_bonus
    int* x_penalty
    char* text
    int* text_off
    int nm, nr, nd

cdef inline double now() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + t.tv_nsec * 1e-9

cdef int ask(void* act, int g, int seat, const State* s) except -1 with gil:
    """A callback seat's move: ``act(game, seat, GameState)`` (a copy of the position) -> code."""
    cdef Core core = Core.__new__(Core)
    memcpy(&core.s, s, sizeof(State))
    return (<object>act)(g, seat, GameState(core))

cdef int deal_text(const State* s, char* out) noexcept nogil:
    """The deal as game.py writes it: each factory's letters (colour order), joined by spaces."""
    cdef int f, c, k, n = 0
    cdef const char* letters = b"BYRKW"
    for f in range(s.factories):
        if f:
            out[n] = 32
            n += 1
        for c in range(5):
            for k in range(s.source[f][c]):
                out[n] = letters[c]
                n += 1
    return n

cdef int* column(dict table, str name, Py_ssize_t rows) except NULL:
    cdef int[::1] v = table[name]
    if v.shape[0] < rows:
        raise ValueError(f"column {name} holds {v.shape[0]} rows, fewer than {rows}")
    return &v[0]

cdef enum:
    ROOM_MOVES = 600    # what one game may write at most: moves,
    ROOM_ROUNDS = 40    # rounds (rows per seat) and deals
    ROOM_TEXT = 48      # bytes of one deal's text at most

MOVE_ROOM, ROUND_ROOM, DEAL_ROOM, DEAL_TEXT = ROOM_MOVES, ROOM_ROUNDS, ROOM_ROUNDS, ROOM_TEXT


def play_games(int players, bint gray, int[::1] openers, int[:, ::1] kinds, uint64_t[:, ::1] bot_seeds,
               int[:, ::1] copies, const unsigned char[::1] game_ids, int[::1] id_off, double[:, :, ::1] weights,
               uint64_t[::1] deal_seeds, object act, dict moves, dict rounds, dict games, dict results,
               char[::1] deal_text_out, int[::1] deal_off):
    """Play games 0.. in order into the arrays; return (games played, moves, rounds, deals written).

    Per game g: ``openers[g]``, ``deal_seeds[g]``, its id ``game_ids[id_off[g]:id_off[g + 1]]``
    (ASCII); per seat: ``kinds``, ``bot_seeds`` (the bot's config seed), ``copies`` (earlier seats
    with the same bot), ``weights`` (heuristic). Round r is dealt from round_seed(deal_seed, r)
    and each bot's generator is seeded with bot_game_seed(...), both worked out in C with
    tournament/_seeds.pyx, the hash of scheduler.derive_seed. Output arrays (numpy int32 unless said, preallocated):
    ``moves``: g ply round seat code colour taken to_floor marker legal; ``rounds``: g round
    seat opener deal wall_points floor_penalty score_after; ``games``: rounds plies duration
    (float64); ``results``: score rank rows columns colours bonus penalty ([g, seat]). Deal texts
    go to ``deal_text_out`` at ``deal_off``. It stops before a game that might not fit the
    arrays (ROOM_MOVES moves, ROOM_ROUNDS rounds and deals each).
    """
    cdef int n_games = openers.shape[0], g, i, status = 0
    cdef Py_ssize_t cap_m = len(moves["g"]), cap_r = len(rounds["g"]), cap_d = deal_off.shape[0] - 1
    cdef Cols o
    cdef bint has_callback = False
    cdef Bot bots[4]
    cdef const unsigned char* ids = &game_ids[0] if game_ids.shape[0] else NULL
    o.m_g, o.m_ply, o.m_round = column(moves, "g", cap_m), column(moves, "ply", cap_m), column(moves, "round", cap_m)
    o.m_seat, o.m_code, o.m_colour = column(moves, "seat", cap_m), column(moves, "code", cap_m), column(moves, "colour", cap_m)
    o.m_taken, o.m_floor = column(moves, "taken", cap_m), column(moves, "to_floor", cap_m)
    o.m_marker, o.m_legal = column(moves, "marker", cap_m), column(moves, "legal", cap_m)
    o.r_g, o.r_round, o.r_seat = column(rounds, "g", cap_r), column(rounds, "round", cap_r), column(rounds, "seat", cap_r)
    o.r_opener, o.r_deal = column(rounds, "opener", cap_r), column(rounds, "deal", cap_r)
    o.r_points, o.r_penalty = column(rounds, "wall_points", cap_r), column(rounds, "floor_penalty", cap_r)
    o.r_score = column(rounds, "score_after", cap_r)
    o.g_rounds, o.g_plies = column(games, "rounds", n_games), column(games, "plies", n_games)
    cdef double[::1] duration = games["duration"]
    o.g_duration = &duration[0]
    o.x_score, o.x_rank = column(results, "score", n_games * players), column(results, "rank", n_games * players)
    o.x_rows, o.x_cols = column(results, "rows", n_games * players), column(results, "columns", n_games * players)
    o.x_colours, o.x_bonus = column(results, "colours", n_games * players), column(results, "bonus", n_games * players)
    o.x_penalty = column(results, "penalty", n_games * players)
    o.text, o.text_off = &deal_text_out[0], &deal_off[0]
    o.nm = o.nr = o.nd = 0
    if deal_text_out.shape[0] < cap_d * ROOM_TEXT:
        raise ValueError("deal text array too small for its offsets")
    for g in range(n_games):
        if id_off[g + 1] - id_off[g] > MAX_ID:
            raise ValueError(f"game {g}'s id is {id_off[g + 1] - id_off[g]} bytes long, longer than {MAX_ID}")
    o.text_off[0] = 0
    for g in range(n_games):
        for i in range(players):
            has_callback = has_callback or kinds[g, i] == KIND_CALLBACK
    if has_callback:
        g = play_range(n_games, players, gray, openers, kinds, bot_seeds, copies, ids, id_off, weights, deal_seeds,
                       <void*>act, bots, &o, cap_m, cap_r, cap_d, &status)
    else:
        with nogil:
            g = play_range(n_games, players, gray, openers, kinds, bot_seeds, copies, ids, id_off, weights,
                           deal_seeds, NULL, bots, &o, cap_m, cap_r, cap_d, &status)
    if status != 0:
        raise RuntimeError(f"compiled league loop: game {g} outgrew the room kept for a game")
    return g, o.nm, o.nr, o.nd


cdef int play_range(int n_games, int players, bint gray, int[::1] openers, int[:, ::1] kinds,
                    uint64_t[:, ::1] bot_seeds, int[:, ::1] copies, const unsigned char* ids, int[::1] id_off,
                    double[:, :, ::1] weights, uint64_t[::1] deal_seeds, void* act, Bot* bots, Cols* o,
                    Py_ssize_t cap_m, Py_ssize_t cap_r, Py_ssize_t cap_d, int* status) except -2 nogil:
    """Play games 0.. while the arrays have room for one more; return how many were played
    (``status`` -1: a game outgrew its room)."""
    cdef int g = 0, i
    cdef Weights* w
    status[0] = 0
    while g < n_games:
        if o.nm + ROOM_MOVES > cap_m or o.nr + ROOM_ROUNDS * players > cap_r or o.nd + ROOM_ROUNDS > cap_d:
            break
        for i in range(players):
            bots[i].kind = kinds[g, i]
            bots[i].rng.s = bot_seed_of(bot_seeds[g, i], ids + id_off[g], id_off[g + 1] - id_off[g], copies[g, i])
            if bots[i].kind == KIND_RANDOM:
                mt_seed(&bots[i].mt, bots[i].rng.s)
            w = &bots[i].w
            w.line, w.later, w.column, w.row = weights[g, i, 0], weights[g, i, 1], weights[g, i, 2], weights[g, i, 3]
            w.colour_set, w.floor_risk, w.marker = weights[g, i, 4], weights[g, i, 5], weights[g, i, 6]
            w.denial, w.reply = weights[g, i, 7], weights[g, i, 8]
        status[0] = play_one(players, gray, openers[g], bots, deal_seeds[g], act, g, o)
        if status[0] != 0:
            return g
        g += 1
    return g


cdef int play_one(int players, bint gray, int opener, Bot* bots, uint64_t deal_seed, void* act, int g,
                  Cols* o) except -2 nogil:
    cdef State st
    cdef Rng deal_rng
    cdef int moves[MAX_MOVES]
    cdef int nm = o.nm, nr = o.nr, nd = o.nd, m_end = o.nm + ROOM_MOVES, r_end = o.nr + ROOM_ROUNDS * players
    cdef int d_end = o.nd + ROOM_ROUNDS
    cdef int rnd = 0, ply = 0, round_opener = 0, deal = -1, n, code, seat, p, q, k
    cdef int rank[4]
    cdef int penalties[4]
    cdef Facts f
    cdef double started = now()
    cdef const Board* b
    state_init(&st, players, gray)
    st.to_move = opener
    st.opener = opener
    for p in range(players):
        penalties[p] = 0
    while st.phase != OVER:
        if st.phase == REFILL:
            rnd = st.round
            deal_rng.s = round_seed_of(deal_seed, rnd)
            deal_random(&st, &deal_rng)
            round_opener = st.opener
            if nd >= d_end:
                return -1
            deal = nd
            o.text_off[nd + 1] = o.text_off[nd] + deal_text(&st, o.text + o.text_off[nd])
            nd += 1
            if st.phase != OVER:
                continue
        else:
            seat = st.to_move
            k = bots[seat].kind
            if k == KIND_GREEDY and st.phase == DRAFT:
                code = greedy_draft(&st, &bots[seat].rng, &n)  # no move list to generate
            else:
                n = gen_moves(&st, moves)
                if k == KIND_GREEDY:
                    code = greedy_pick(&st, &bots[seat].rng, moves, n)
                elif k == KIND_HEURISTIC:
                    code = heuristic_pick(&st, &bots[seat].rng, &bots[seat].w, moves, n)
                elif k == KIND_RANDOM:
                    code = moves[mt_below(&bots[seat].mt, n)]
                else:
                    code = ask(act, g, seat, &st)
            if nm >= m_end:
                return -1
            f = move_facts(&st, code)
            o.m_g[nm], o.m_ply[nm], o.m_round[nm], o.m_seat[nm] = g, ply + 1, st.round, seat
            o.m_code[nm], o.m_legal[nm] = code, n
            o.m_colour[nm], o.m_taken[nm], o.m_floor[nm], o.m_marker[nm] = f.colour, f.taken, f.to_floor, f.marker
            apply_move(&st, code)
            nm += 1
            ply += 1
            if st.phase < REFILL:
                continue
        # the round closed (after its last move, or after an empty deal)
        if nr + players > r_end:
            return -1
        for p in range(players):
            b = &st.boards[p]
            penalties[p] += b.round_penalty
            o.r_g[nr], o.r_round[nr], o.r_seat[nr], o.r_opener[nr], o.r_deal[nr] = g, rnd, p, round_opener, deal
            o.r_points[nr], o.r_penalty[nr], o.r_score[nr] = b.round_points, b.round_penalty, b.score
            nr += 1
    ranks(&st, rank)
    for p in range(players):
        b = &st.boards[p]
        q = g * players + p
        o.x_score[q], o.x_rank[q], o.x_bonus[q], o.x_penalty[q] = b.score, rank[p], b.bonus, penalties[p]
        o.x_rows[q], o.x_cols[q], o.x_colours[q] = complete_rows(b), complete_columns(b), complete_colours(b)
    o.g_rounds[g], o.g_plies[g], o.g_duration[g] = rnd, ply, now() - started
    o.nm, o.nr, o.nd = nm, nr, nd
    return 0
