# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""UCT search over the engine's C state; bots/mcts.py wraps it.

The tree lives in one preallocated pool of nodes (C array, grown with realloc, reset per search).
A node is expanded on its second visit, all children at once, in an order shuffled with the
search's own generator. Every iteration copies the root state (struct assignment), descends by
UCT on the value of the seat to move, rolls out from the leaf and backs up each seat's value.
The tree stops at the end of a round (phase REFILL: the next deal is chance). The rollout
(``roll_out``: a policy and a cut-off) plays on from the leaf to the round's end (cutoff "round")
or, dealing with the search's own generator, to the end of the game (cutoff "game"); what it
reaches is valued by the game's result when the game is over, else by the bot's evaluator
(bots/_evaluators.pyx). The referee's generator is never seen: a State holds none.

Values are per seat in [0, 1] (see bots/_evaluators.pyx). A node stores the total value of the
seat that moved into it, so that the parent's seat to move picks its child by its own mean.
"""
from libc.math cimport log, sqrt
from libc.stdint cimport uint8_t, uint16_t, int32_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from engine._core cimport (Core, State, Board, Rng, DRAFT, TILING, REFILL, OVER, NO_SEAT, FLOOR,
                           TILING_BASE, gen_moves, apply_move, random_move, deal_random, rng_next,
                           rng_below, dest_mask, check_move, MAX_MOVES)
from bots._policies cimport Weights, greedy_move, heuristic_move, default_weights, keep_allowed
from bots._evaluators cimport Evaluator, result_values
from bots._prior cimport NFEATURES, prior_of, prior_move

cdef enum:
    ROLLOUT_RANDOM = 0
    ROLLOUT_GREEDY = 1
    ROLLOUT_HEURISTIC = 2
    ROLLOUT_PRIOR = 3
    MAX_DEPTH = 256          # plies inside one round: at most ~40 drafts plus 20 tilings
    FIRST_CAPACITY = 1 << 16
    TIME_CHECK = 64          # iterations between clock reads under a time budget
    TABLE = 4096             # visit counts below this take 1/n and 1/sqrt(n) from tables

ROLLOUTS = {"random": ROLLOUT_RANDOM, "greedy": ROLLOUT_GREEDY, "heuristic": ROLLOUT_HEURISTIC,
            "prior": ROLLOUT_PRIOR}
CUTOFFS = {"round": 0, "game": 1}
PRUNES = {"none": 0, "floor": 1}

cdef struct Node:
    double value             # total value, for the seat that moved into this node
    int32_t first_child      # index of the first child in the pool (children are contiguous)
    uint32_t visits
    uint16_t move            # move code that leads here from the parent
    uint16_t n_children      # 0 while not expanded (and for leaves that cannot be expanded)
    float prior              # the policy prior of the move (a search with prior weights), else 0


# select's per-child arithmetic read from tables (a third of a search's time went to its
# division and square root per child): INV[n] = 1/n, ISQRT[n] = 1/sqrt(n); [0] unused. They
# only rule children out; the child chosen is the one the exact scores choose, so a search is
# the same, move for move, as with the division and square root for every child.
cdef double INV[TABLE]
cdef double ISQRT[TABLE]
INV[0] = ISQRT[0] = 0
for _n in range(1, TABLE):
    INV[_n] = 1.0 / _n
    ISQRT[_n] = 1.0 / sqrt(<double>_n)


cdef inline double now() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + t.tv_nsec * 1e-9


cdef uint64_t mix64(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef uint64_t state_hash(const State* s) noexcept nogil:
    """A hash of what the position format holds (not of the raw bytes, which keep stale slots)."""
    cdef uint64_t h = 0x243F6A8885A308D3
    cdef int p, i, c
    cdef const Board* b
    h = mix64(h ^ (s.players | (s.gray << 8) | (s.phase << 16) | (s.to_move << 24)
                   | (<uint64_t>s.opener << 32) | (<uint64_t>s.marker << 40)
                   | (<uint64_t>(s.round & 0xFFFF) << 48)))
    for i in range(10):
        for c in range(5):
            h = mix64(h ^ (s.source[i][c] + 64 * (i * 5 + c) + 1))
    for c in range(5):
        h = mix64(h ^ (s.bag[c] | (s.lid[c] << 8) | (c << 16)))
    for p in range(s.players):
        b = &s.boards[p]
        h = mix64(h ^ (<uint64_t><uint32_t>b.score | (<uint64_t>(p + 1) << 40)))
        for i in range(5):
            c = b.line_colour[i] if b.line_count[i] else 255
            h = mix64(h ^ (c | (b.line_count[i] << 8) | (i << 16)))
        for i in range(25):
            h = mix64(h ^ (b.cell[i] | (i << 8)))
        h = mix64(h ^ (b.floor_n | 0x7700))
        for i in range(b.floor_n):
            h = mix64(h ^ (b.floor[i] | (i << 8) | 0x10000))
    return h


cdef struct Rollout:
    int policy               # ROLLOUT_RANDOM, ROLLOUT_GREEDY, ROLLOUT_HEURISTIC or ROLLOUT_PRIOR
    bint to_game_end         # cutoff "game": deal the next rounds and play on
    Weights weights          # the heuristic policy's
    double prior_w[NFEATURES]   # the policy prior's weights (with prior): PUCT's and the prior policy's


cdef void roll_out(State* s, const Rollout* r, Rng* rng) noexcept nogil:
    """Play on from s with the rollout's policy to its cut-off: the game's end or, unless
    to_game_end, the round's end (phase REFILL)."""
    cdef int code
    while s.phase != OVER:
        if s.phase == REFILL:
            if not r.to_game_end:
                return
            deal_random(s, rng)
            continue
        if r.policy == ROLLOUT_RANDOM:
            code = random_move(s, rng)
        elif r.policy == ROLLOUT_GREEDY:
            code = greedy_move(s, rng)
        elif r.policy == ROLLOUT_PRIOR:
            code = prior_move(s, rng, r.prior_w)
        else:
            code = heuristic_move(s, rng, &r.weights)
        apply_move(s, code)


cdef int prune_floor(const State* s, int* moves, int n) noexcept nogil:
    """Drop from ``moves[:n]`` each draft to the floor whose tiles one pattern line could take
    all of (the same draft to that line costs fewer floor slots); return how many are left, in
    order. A source's colour always keeps a move."""
    cdef const Board* b = &s.boards[s.to_move]
    cdef int i, d, k = 0, code, c, tiles, mask
    cdef bint fits
    for i in range(n):
        code = moves[i]
        if code < TILING_BASE and code % 6 == FLOOR:
            c = (code // 6) % 5
            tiles = s.source[code // 30][c]
            mask = dest_mask(b, c)
            fits = False
            for d in range(5):
                if (mask >> d) & 1 and d + 1 - b.line_count[d] >= tiles:
                    fits = True
            if fits:
                continue
        moves[k] = code
        k += 1
    return k


cdef class Search:
    """One reusable search: the node pool, the root, and the settings of the last run."""
    cdef Node* nodes
    cdef int32_t n_nodes, capacity, max_nodes
    cdef State root
    cdef Rng rng
    cdef double exploration
    cdef int prune           # a value of PRUNES
    cdef Rollout rollout
    cdef Evaluator evaluator
    cdef int root_moves[MAX_MOVES]
    cdef int n_root_moves    # the root's children when restricted (run's allowed), else -1
    cdef double root_bias[TILING_BASE + 25]   # run's root_bias by move code, when biased
    cdef bint biased
    cdef double child_sum[MAX_MOVES][4]   # per root child (tree order): each seat's values summed (child_values)
    cdef bint use_prior      # PUCT with the policy prior (run's prior), else UCT
    cdef double puct
    cdef public long long iterations_done

    def __cinit__(self, int max_nodes=1 << 23):
        self.max_nodes = max_nodes
        self.capacity = FIRST_CAPACITY if FIRST_CAPACITY < max_nodes else max_nodes
        self.nodes = <Node*>malloc(self.capacity * sizeof(Node))
        if self.nodes == NULL:
            raise MemoryError("mcts: cannot allocate the node pool")
        self.n_nodes = 0
        self.n_root_moves = -1
        default_weights(&self.rollout.weights)

    def __dealloc__(self):
        free(self.nodes)

    def __reduce__(self):
        return (Search, (self.max_nodes,))   # a fresh, empty search: trees are not carried

    # ------------------------------------------------------------ the entry point from Python
    def run(self, state, seed, long long iterations, double seconds, double exploration,
            str rollout, str cutoff, Evaluator evaluator not None, allowed=None, str prune="none",
            root_bias=None, prior=None, double puct=0.0):
        """Search from a GameState's position; seconds > 0 means a time budget (iterations then a cap).

        ``rollout`` and ``cutoff``: names in ROLLOUTS and CUTOFFS; ``evaluator`` values the
        positions the rollouts stop at before the game's end (bots/_evaluators.pyx).

        ``allowed``: move codes; the root then has a child only for each legal move in it (a
        ValueError when none is legal), and the search below it is unchanged. None: every legal
        move (the same tree and generator stream as every allowed).

        ``prune``: a name in PRUNES; "floor" leaves out of every node's children (the root's
        too, unless ``allowed`` says them) the drafts to the floor that ``prune_floor`` drops.

        ``root_bias``: {move code: value} added to a root child's mean wherever the search
        selects among the root's children (a plan intervention's bias, in the value's units; the
        rollouts and the tree below do not see it). All 0: the same search as none.

        ``prior``: the policy prior's weights (bots/prior.py, one a feature): every node then
        selects by PUCT, mean + puct * P * sqrt(visits) / (1 + child visits), P the move's prior,
        an unvisited child's mean that of its visited siblings (0.5 before any), the root's bias
        (with root_bias) added to its children's means. None: UCT, exactly as without it. The
        rollout policy "prior" plays the prior's most likely draft (it needs ``prior``)."""
        cdef Core core = state._core
        if core.s.phase != DRAFT and core.s.phase != TILING:
            raise ValueError("mcts: no move to search: the position is not in a draft or tiling phase")
        self.n_root_moves = -1
        if allowed is not None:
            self.n_root_moves = keep_allowed(self.root_moves, gen_moves(&core.s, self.root_moves),
                                             allowed)
        self.biased = root_bias is not None
        self.use_prior = prior is not None
        if self.use_prior:
            if len(prior) != NFEATURES:
                raise ValueError(f"mcts: the prior has {NFEATURES} weights, not {len(prior)}")
            for k in range(NFEATURES):
                self.rollout.prior_w[k] = prior[k]
            self.puct = puct
        elif rollout == "prior":
            raise ValueError("mcts: rollout 'prior' plays the policy prior's moves: give the prior's weights")
        if self.biased:
            memset(self.root_bias, 0, sizeof(self.root_bias))
            for code, bias in root_bias.items():
                if not 0 <= code < TILING_BASE + 25:
                    raise ValueError(f"mcts: root_bias for move code {code}, not a move")
                self.root_bias[<int>code] = bias
        self.root = core.s                   # a copy: the shown state is never touched
        self.exploration = exploration
        self.prune = PRUNES[prune]
        self.rollout.policy = ROLLOUTS[rollout]
        self.rollout.to_game_end = CUTOFFS[cutoff]
        self.evaluator = evaluator
        self.rng.s = (mix64(<uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF) ^ 0x5851F42D4C957F2D)
                      ^ state_hash(&self.root))
        memset(self.child_sum, 0, sizeof(self.child_sum))
        self.n_nodes = 1
        self.nodes[0].value = 0
        self.nodes[0].visits = 0
        self.nodes[0].n_children = 0
        self.nodes[0].first_child = 0
        self.nodes[0].move = 0
        with nogil:
            self.iterations_done = self.loop(iterations, seconds)
        return self.iterations_done

    # ------------------------------------------------------------ the loop, in C
    cdef long long loop(self, long long iterations, double seconds) noexcept nogil:
        cdef State st
        cdef int32_t path[MAX_DEPTH]
        cdef uint8_t seats[MAX_DEPTH]
        cdef double values[4]
        cdef double deadline = now() + seconds if seconds > 0 else 0
        cdef long long it = 0
        cdef int depth, d
        cdef int32_t idx, child
        cdef Node* nd
        while it < iterations:
            if deadline and it % TIME_CHECK == 0 and it and now() >= deadline:
                break
            st = self.root
            idx = 0
            depth = 0
            path[0] = 0
            while True:
                if self.nodes[idx].n_children == 0:
                    if (self.nodes[idx].visits == 0 and idx != 0) or st.phase >= REFILL:
                        break
                    if not self.expand(idx, &st):
                        break
                if idx == 0 and self.biased:
                    child = self.select_puct(0, True) if self.use_prior else self.select_root()
                elif self.use_prior:
                    child = self.select_puct(idx, False)
                else:
                    child = self.select(idx)
                seats[depth + 1] = st.to_move
                apply_move(&st, self.nodes[child].move)
                depth += 1
                path[depth] = child
                idx = child
                if depth == MAX_DEPTH - 1:
                    break
            roll_out(&st, &self.rollout, &self.rng)
            if st.phase == OVER:
                result_values(&st, values)
            else:
                self.evaluator.values(&st, values)
            self.nodes[0].visits += 1
            if depth >= 1:   # the root child this iteration went through: each seat's value
                child = path[1] - self.nodes[0].first_child
                for d in range(self.root.players):
                    self.child_sum[child][d] += values[d]
            for d in range(1, depth + 1):
                nd = &self.nodes[path[d]]
                nd.visits += 1
                nd.value += values[seats[d]]
            it += 1
        return it

    cdef bint expand(self, int32_t idx, State* st) noexcept nogil:
        """Give node idx a child per legal move, in shuffled order; False when the pool is full."""
        cdef int moves[MAX_MOVES]
        cdef double priors[MAX_MOVES]
        cdef int n = gen_moves(st, moves), i, j, t
        cdef int32_t first = self.n_nodes, cap
        cdef Node* grown
        cdef Node* ch
        if idx == 0 and self.n_root_moves >= 0:
            n = self.n_root_moves
            for i in range(n):
                moves[i] = self.root_moves[i]
        elif self.prune:
            n = prune_floor(st, moves, n)
        if first + n > self.capacity:
            cap = self.capacity
            while cap < first + n and cap < self.max_nodes:
                cap = 2 * cap if 2 * cap < self.max_nodes else self.max_nodes
            if cap < first + n:
                return False
            grown = <Node*>realloc(self.nodes, cap * sizeof(Node))
            if grown == NULL:
                return False
            self.nodes = grown
            self.capacity = cap
        for i in range(n - 1, 0, -1):
            j = rng_below(&self.rng, i + 1)
            t = moves[i]
            moves[i] = moves[j]
            moves[j] = t
        if self.use_prior:
            prior_of(st, moves, n, self.rollout.prior_w, priors)
        for i in range(n):
            ch = &self.nodes[first + i]
            ch.prior = priors[i] if self.use_prior else 0
            ch.value = 0
            ch.visits = 0
            ch.move = moves[i]
            ch.n_children = 0
            ch.first_child = 0
        self.n_nodes = first + n
        self.nodes[idx].first_child = first
        self.nodes[idx].n_children = n
        return True

    cdef int32_t select(self, int32_t idx) noexcept nogil:
        """UCT: the first unvisited child, else the best mean plus exploration bonus
        (exploration * sqrt(log(parent's visits) / child's visits))."""
        cdef Node* nd = &self.nodes[idx]
        cdef Node* ch
        cdef int32_t first = nd.first_child, best = first
        cdef int i
        cdef double logn = log(<double>nd.visits if nd.visits else 1.0)
        cdef double bonus = self.exploration * sqrt(logn)
        cdef double score, best_score = -1e300
        cdef uint32_t v
        for i in range(nd.n_children):
            ch = &self.nodes[first + i]
            v = ch.visits
            if v == 0:
                return first + i
            # a child whose score from the tables (within 1e-13 of the exact one) is short of the
            # best by more than that cannot be chosen: skip its division and square root
            if v < TABLE and ch.value * INV[v] + bonus * ISQRT[v] < best_score - 1e-9:
                continue
            score = ch.value / v + self.exploration * sqrt(logn / v)
            if score > best_score:
                best_score = score
                best = first + i
        return best

    cdef int32_t select_puct(self, int32_t idx, bint biased) noexcept nogil:
        """PUCT: the best mean plus puct * prior * sqrt(parent's visits) / (1 + child's visits); an
        unvisited child's mean is its visited siblings' (0.5 before any). ``biased`` (the root of a
        search with root_bias): each child's bias added to its mean, as select_root adds it to UCT's."""
        cdef Node* nd = &self.nodes[idx]
        cdef Node* ch
        cdef int32_t first = nd.first_child, best = first
        cdef int i
        cdef double total = 0, seen = 0, fpu, q, score, best_score = -1e300
        cdef double scale = self.puct * sqrt(<double>nd.visits if nd.visits else 1.0)
        for i in range(nd.n_children):
            ch = &self.nodes[first + i]
            if ch.visits:
                total += ch.value
                seen += ch.visits
        fpu = total / seen if seen else 0.5
        for i in range(nd.n_children):
            ch = &self.nodes[first + i]
            q = ch.value / ch.visits if ch.visits else fpu
            score = q + scale * ch.prior / (1 + ch.visits)
            if biased:
                score += self.root_bias[ch.move]
            if score > best_score:
                best_score = score
                best = first + i
        return best

    cdef int32_t select_root(self) noexcept nogil:
        """select at the root, each child's root_bias added to its mean (exact scores: with every
        bias 0, select's choice)."""
        cdef Node* nd = &self.nodes[0]
        cdef Node* ch
        cdef int32_t first = nd.first_child, best = first
        cdef int i
        cdef double logn = log(<double>nd.visits if nd.visits else 1.0)
        cdef double score, best_score = -1e300
        for i in range(nd.n_children):
            ch = &self.nodes[first + i]
            if ch.visits == 0:
                return first + i
            score = ch.value / ch.visits + self.root_bias[ch.move] + self.exploration * sqrt(logn / ch.visits)
            if score > best_score:
                best_score = score
                best = first + i
        return best

    # ------------------------------------------------------------ results, read from Python
    def root_rows(self, int pv_length=6):
        """(move code, visits, mean value for the seat to move, pv codes) per root child, tree order."""
        cdef Node* root = &self.nodes[0]
        cdef Node* ch
        cdef int i
        rows = []
        for i in range(root.n_children):
            ch = &self.nodes[root.first_child + i]
            rows.append((ch.move, ch.visits, ch.value / ch.visits if ch.visits else 0.0,
                         self.principal_variation(root.first_child + i, pv_length)))
        return rows

    cdef list principal_variation(self, int32_t idx, int length):
        cdef list pv = [self.nodes[idx].move]
        cdef Node* nd
        cdef int32_t best
        cdef int i
        while len(pv) < length:
            nd = &self.nodes[idx]
            if nd.n_children == 0:
                break
            best = -1
            for i in range(nd.n_children):
                if best < 0 or self.nodes[nd.first_child + i].visits > self.nodes[best].visits:
                    best = nd.first_child + i
            if self.nodes[best].visits == 0:
                break
            pv.append(self.nodes[best].move)
            idx = best
        return pv

    def child_values(self, int code):
        """Each seat's mean value (the share of opponents it beats, as the rollouts and the evaluator
        value them) over the last run's iterations through the root's child of move ``code``."""
        cdef Node* root = &self.nodes[0]
        cdef int i
        for i in range(root.n_children):
            if self.nodes[root.first_child + i].move == code:
                if self.nodes[root.first_child + i].visits == 0:
                    raise ValueError(f"mcts: the search never tried move code {code}")
                return [self.child_sum[i][p] / self.nodes[root.first_child + i].visits
                        for p in range(self.root.players)]
        raise ValueError(f"mcts: move code {code} is not one of the root's children")

    def best_move(self):
        """The most visited root child (ties: higher mean, then tree order); its move code."""
        cdef Node* root = &self.nodes[0]
        cdef Node* ch
        cdef Node* best = NULL
        cdef int i
        for i in range(root.n_children):
            ch = &self.nodes[root.first_child + i]
            if best == NULL or ch.visits > best.visits or (
                    ch.visits == best.visits and ch.value > best.value):
                best = ch
        if best == NULL:
            raise ValueError("mcts: the search has not run")
        return best.move

    @property
    def nodes_used(self):
        return self.n_nodes


def playout_points(state, int code, int playouts, seed, str rollout="greedy"):
    """Each seat's mean final score over ``playouts`` games played on from a GameState's position
    after the legal move ``code``: the rollout policy (a name in ROLLOUTS; the heuristic with its
    default weights) to the game's end, each next round dealt at random from the bag and lid, one
    stream for all the playouts from the seed and the position. The game review's expected points
    (analysis/review.py): what a move is worth in points, which the search's values (shares of
    opponents beaten) do not say."""
    cdef Core core = state._core
    cdef State st
    cdef Rollout r
    cdef Rng rng
    cdef double totals[4]
    cdef int i, p
    if core.s.phase != DRAFT and core.s.phase != TILING:
        raise ValueError("playout_points: no move to play: the position is not in a draft or tiling phase")
    if check_move(&core.s, code) != 0:
        raise ValueError(f"playout_points: move code {code} is not legal here")
    if playouts < 1:
        raise ValueError(f"playout_points: playouts must be at least 1, not {playouts}")
    if rollout == "prior":
        raise ValueError("playout_points: rollout 'prior' needs a search's prior; use greedy, heuristic or random")
    r.policy = ROLLOUTS[rollout]
    r.to_game_end = 1
    default_weights(&r.weights)
    rng.s = mix64(<uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF) ^ 0x2545F4914F6CDD1D) ^ state_hash(&core.s)
    memset(totals, 0, sizeof(totals))
    with nogil:
        for i in range(playouts):
            st = core.s
            apply_move(&st, code)
            roll_out(&st, &r, &rng)
            for p in range(st.players):
                totals[p] += st.boards[p].score
    return [totals[p] / playouts for p in range(core.s.players)]
