# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""League games between built-in compiled bots, played whole in C (tournament/fastloop.py is the glue).

``play_games`` plays a batch of games with the engine's core and the bots' C policies and fills
preallocated column arrays for the four record tables: no Python object per move. It does
exactly what the Python referee does (tournament/game.py over engine/loop.py): the same deals
(round r dealt from ``round_seeds[g, r - 1]``), the same bots' generators (greedy and heuristic:
the policy's Rng seeded with the game seed; random: Python's ``random.Random(seed).choice`` over
the legal moves, replicated with MT19937 here), the same facts per move and round.

A seat of kind CALLBACK (mcts) asks Python for its move (``act(game, seat, core) -> code``),
with the GIL, once per move; its search itself runs in C.
"""
from libc.stdint cimport uint8_t, int32_t, uint32_t, uint64_t
from libc.string cimport memcpy
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from engine._core cimport (Core, State, Board, Rng, REFILL, OVER, CENTRE, FLOOR, NO_SEAT, TILING_BASE,
                           MAX_MOVES, state_init, deal_random, gen_moves, apply_move)
from bots._policies cimport Weights, greedy_move, heuristic_move

cdef enum:
    KIND_RANDOM = 0
    KIND_GREEDY = 1
    KIND_HEURISTIC = 2
    KIND_CALLBACK = 3
    STATUS_NEED_SEEDS = 1   # a game's status: it went past the round seeds it was given (not recorded)

KINDS = {"random": KIND_RANDOM, "greedy": KIND_GREEDY, "heuristic": KIND_HEURISTIC, "callback": KIND_CALLBACK}
NEED_SEEDS = STATUS_NEED_SEEDS

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

cdef inline double now() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + t.tv_nsec * 1e-9

cdef int ask(void* act, int g, int seat, const State* s) except -1 with gil:
    cdef Core core = Core.__new__(Core)
    memcpy(&core.s, s, sizeof(State))
    return (<object>act)(g, seat, core)

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


def play_games(int players, bint gray, int[:] openers, int[:, :] kinds, uint64_t[:, :] seeds,
               double[:, :, :] weights, uint64_t[:, :] round_seeds, object act,
               dict moves, dict rounds, dict games, dict results, char[:] fact_text, int[:] fact_off):
    """Play games 0.. in order into the arrays; return (games processed, moves, rounds, deals written).

    Per game g: ``openers[g]``; per seat: ``kinds``, ``seeds`` (the bot's game seed), ``weights``
    (heuristic). Output arrays (numpy, preallocated): ``moves``: g ply round seat code colour taken
    to_floor marker legal; ``rounds``: g round seat opener deal wall_points floor_penalty
    score_after; ``games``: rounds plies status duration; ``results``: score rank rows columns
    colours bonus penalty (per game and seat, [g, seat]). Deal texts go to ``fact_text`` at
    ``fact_off``. It stops before a game that might not fit the arrays.
    """
    cdef int[:] m_g = moves["g"], m_ply = moves["ply"], m_round = moves["round"], m_seat = moves["seat"]
    cdef int[:] m_code = moves["code"], m_colour = moves["colour"], m_taken = moves["taken"]
    cdef int[:] m_floor = moves["to_floor"], m_marker = moves["marker"], m_legal = moves["legal"]
    cdef int[:] r_g = rounds["g"], r_round = rounds["round"], r_seat = rounds["seat"], r_opener = rounds["opener"]
    cdef int[:] r_deal = rounds["deal"], r_points = rounds["wall_points"], r_penalty = rounds["floor_penalty"]
    cdef int[:] r_score = rounds["score_after"]
    cdef int[:] g_rounds = games["rounds"], g_plies = games["plies"], g_status = games["status"]
    cdef double[:] g_duration = games["duration"]
    cdef int[:, :] x_score = results["score"], x_rank = results["rank"], x_rows = results["rows"]
    cdef int[:, :] x_cols = results["columns"], x_colours = results["colours"], x_bonus = results["bonus"]
    cdef int[:, :] x_penalty = results["penalty"]
    cdef int n_games = openers.shape[0], max_rounds = round_seeds.shape[1]
    cdef int cap_moves = m_g.shape[0], cap_rounds = r_g.shape[0], cap_deals = fact_off.shape[0] - 1
    cdef int g = 0, nm = 0, nr = 0, nd = 0, m0, r0, d0, status
    cdef bint has_callback = False
    cdef Bot bots[4]
    cdef int i, j
    cdef Weights* w
    fact_off[0] = 0
    for g in range(n_games):
        for i in range(players):
            has_callback = has_callback or kinds[g, i] == KIND_CALLBACK
    g = 0
    while g < n_games:
        # room for a long game: 600 plies, 30 rounds (a game that needs more stops at its seeds)
        if nm + 600 > cap_moves or nr + 30 * players > cap_rounds or nd + 30 > cap_deals:
            break
        for i in range(players):
            bots[i].kind = kinds[g, i]
            bots[i].rng.s = seeds[g, i]
            if bots[i].kind == KIND_RANDOM:
                mt_seed(&bots[i].mt, seeds[g, i])
            w = &bots[i].w
            w.line, w.later, w.column, w.row = weights[g, i, 0], weights[g, i, 1], weights[g, i, 2], weights[g, i, 3]
            w.colour_set, w.floor_risk, w.marker = weights[g, i, 4], weights[g, i, 5], weights[g, i, 6]
            w.denial, w.reply = weights[g, i, 7], weights[g, i, 8]
        m0, r0, d0 = nm, nr, nd
        if has_callback:
            status = play_one(players, gray, openers[g], bots, &round_seeds[g, 0], max_rounds, <void*>act, g,
                              m_g, m_ply, m_round, m_seat, m_code, m_colour, m_taken, m_floor, m_marker,
                              m_legal, r_g, r_round, r_seat, r_opener, r_deal, r_points, r_penalty, r_score,
                              g_rounds, g_plies, g_duration, x_score, x_rank, x_rows, x_cols, x_colours,
                              x_bonus, x_penalty, &fact_text[0], fact_off, &nm, &nr, &nd)
        else:
            with nogil:
                status = play_one(players, gray, openers[g], bots, &round_seeds[g, 0], max_rounds, NULL, g,
                                  m_g, m_ply, m_round, m_seat, m_code, m_colour, m_taken, m_floor, m_marker,
                                  m_legal, r_g, r_round, r_seat, r_opener, r_deal, r_points, r_penalty,
                                  r_score, g_rounds, g_plies, g_duration, x_score, x_rank, x_rows, x_cols,
                                  x_colours, x_bonus, x_penalty, &fact_text[0], fact_off, &nm, &nr, &nd)
        if status < 0:
            raise RuntimeError("compiled league loop: a game outgrew its arrays")
        g_status[g] = status
        if status != 0:  # not recorded: its rows are taken back
            nm, nr, nd = m0, r0, d0
        g += 1
    return g, nm, nr, nd


cdef int play_one(int players, bint gray, int opener, Bot* bots, const uint64_t* rseeds, int max_rounds,
                  void* act, int g,
                  int[:] m_g, int[:] m_ply, int[:] m_round, int[:] m_seat, int[:] m_code, int[:] m_colour,
                  int[:] m_taken, int[:] m_floor, int[:] m_marker, int[:] m_legal,
                  int[:] r_g, int[:] r_round, int[:] r_seat, int[:] r_opener, int[:] r_deal, int[:] r_points,
                  int[:] r_penalty, int[:] r_score,
                  int[:] g_rounds, int[:] g_plies, double[:] g_duration,
                  int[:, :] x_score, int[:, :] x_rank, int[:, :] x_rows, int[:, :] x_cols,
                  int[:, :] x_colours, int[:, :] x_bonus, int[:, :] x_penalty,
                  char* fact_text, int[:] fact_off, int* pnm, int* pnr, int* pnd) except -2 nogil:
    cdef State st
    cdef Rng deal_rng
    cdef int moves[MAX_MOVES]
    cdef int nm = pnm[0], nr = pnr[0], nd = pnd[0]
    cdef int cap_m = m_g.shape[0], cap_r = r_g.shape[0], cap_d = fact_off.shape[0] - 1
    cdef int rnd = 0, ply = 0, round_opener = 0, deal = -1, n, code, seat, src, c, d, put, p, q, k
    cdef int rows[4]
    cdef int penalties[4]
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
            if rnd > max_rounds:
                return STATUS_NEED_SEEDS
            deal_rng.s = rseeds[rnd - 1]
            deal_random(&st, &deal_rng)
            round_opener = st.opener
            if nd >= cap_d:
                return -1
            deal = nd
            fact_off[nd + 1] = fact_off[nd] + deal_text(&st, fact_text + fact_off[nd])
            nd += 1
            if st.phase != OVER:
                continue
        else:
            n = gen_moves(&st, moves)
            seat = st.to_move
            k = bots[seat].kind
            if k == KIND_GREEDY:
                code = greedy_move(&st, &bots[seat].rng)
            elif k == KIND_HEURISTIC:
                code = heuristic_move(&st, &bots[seat].rng, &bots[seat].w)
            elif k == KIND_RANDOM:
                code = moves[mt_below(&bots[seat].mt, n)]
            else:
                code = ask(act, g, seat, &st)
            if nm >= cap_m:
                return -1
            b = &st.boards[seat]
            m_g[nm], m_ply[nm], m_round[nm], m_seat[nm], m_code[nm], m_legal[nm] = g, ply + 1, st.round, seat, code, n
            if code >= TILING_BASE:
                m_colour[nm], m_taken[nm], m_floor[nm], m_marker[nm] = b.line_colour[(code - TILING_BASE) // 5], -1, 0, 0
            else:
                src, c, d = code // 30, (code // 6) % 5, code % 6
                put = 0
                if d != FLOOR:
                    put = min(st.source[src][c], d + 1 - b.line_count[d])
                m_colour[nm], m_taken[nm], m_floor[nm] = c, st.source[src][c], st.source[src][c] - put
                m_marker[nm] = src == CENTRE and st.marker == NO_SEAT
            apply_move(&st, code)
            nm += 1
            ply += 1
            if st.phase < REFILL:
                continue
        # the round closed (after its last move, or after an empty deal)
        if nr + players > cap_r:
            return -1
        for p in range(players):
            b = &st.boards[p]
            penalties[p] += b.round_penalty
            r_g[nr], r_round[nr], r_seat[nr], r_opener[nr], r_deal[nr] = g, rnd, p, round_opener, deal
            r_points[nr], r_penalty[nr], r_score[nr] = b.round_points, b.round_penalty, b.score
            nr += 1
    for p in range(players):
        b = &st.boards[p]
        rows[p] = 0
        x_cols[g, p] = 0
        x_colours[g, p] = 0
        for k in range(5):
            rows[p] += b.row_mask[k] == 31
            x_cols[g, p] += b.col_mask[k] == 31
            x_colours[g, p] += b.colour_count[k] == 5
        x_score[g, p], x_rows[g, p], x_bonus[g, p], x_penalty[g, p] = b.score, rows[p], b.bonus, penalties[p]
    for p in range(players):  # engine.rules.ranks: 1 + the seats with a better (score, rows)
        k = 1
        for q in range(players):
            if (st.boards[q].score > st.boards[p].score
                    or (st.boards[q].score == st.boards[p].score and rows[q] > rows[p])):
                k += 1
        x_rank[g, p] = k
    g_rounds[g], g_plies[g], g_duration[g] = rnd, ply, now() - started
    pnm[0], pnr[0], pnd[0] = nm, nr, nd
    return 0
