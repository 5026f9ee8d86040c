# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""What the MCTS search (bots/_mcts.pyx) asks at a leaf: the value of the position its rollout
stopped at, per seat, in [0, 1], for the search to back up.

The search plays each rollout to its cut-off (the bot's ``rollout`` and ``cutoff``). A finished
game is valued by its result (``result_values``: the share of opponents beaten); a position at a
round's end, the game not over, by the bot's evaluator, chosen by its ``evaluator`` parameter from
``EVALUATORS``. An evaluator is a subclass of ``Evaluator`` whose ``values`` runs in C without
the GIL; it is built once per bot with the bot's parameters as keywords (``value_scale=8.0, ...``;
``value``, the learned value, also gets the model's bytes as ``model_bytes``)
and reads the ones it uses. A new one is a subclass here plus its entry in ``EVALUATORS`` (docs/bots.md).
``value`` is either kind of learned value, as its model file says: the network (``LearnedValue``,
``azul-value/1``) or the n-tuple tables (``NTupleValue``, ``azul-ntuple/1``, bots/ntuple.py).
"""
from libc.math cimport exp, tanh
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy

from engine._core cimport Core, State, Board, REFILL, NO_SEAT, POPCOUNT, complete_rows
from engine._rl cimport encode_active, observation_length, MAX_OBSERVATION
from bots._policies cimport Weights, evaluate, default_weights

import numpy as np


cdef void result_values(const State* s, double* values) noexcept nogil:
    """Share of opponents beaten (score, then complete rows; a tie counts half): 1 first, 0 last."""
    cdef int p, q, n = s.players, sp, sq
    cdef double v
    for p in range(n):
        v = 0
        for q in range(n):
            if q == p:
                continue
            sp = s.boards[p].score * 8 + complete_rows(&s.boards[p])
            sq = s.boards[q].score * 8 + complete_rows(&s.boards[q])
            v += 1.0 if sp > sq else (0.5 if sp == sq else 0.0)
        values[p] = v / (n - 1)


cdef class Evaluator:
    """The base of the evaluators: a subclass overrides ``values`` (see the .pxd)."""

    def __cinit__(self, *args, **kwargs):
        if type(self) is Evaluator:
            raise TypeError("mcts: Evaluator is a base class: build one of EVALUATORS")

    cdef void values(self, const State* s, double* values) noexcept nogil:
        pass

    def value(self, state):
        """Each seat's value of a GameState at a round's end (phase refill), as the search gets it."""
        cdef Core core = state._core
        cdef double out[4]
        if core.s.phase != REFILL:
            raise ValueError(f"mcts: an evaluator values a position at a round's end (phase refill), "
                             f"not in phase {state.phase}")
        self.values(&core.s, out)
        return [out[p] for p in range(core.s.players)]


cdef class HeuristicValue(Evaluator):
    """The soft share of opponents beaten: each pairwise result is sigmoid((e_p - e_q) / scale),
    e being the heuristic's evaluation in points (``evaluate`` in bots/_policies.pyx)."""
    cdef Weights weights
    cdef double scale

    def __init__(self, *, double value_scale, **parameters):
        # the six weights that reach a round's end's evaluation (the MCTS bot's parameters of
        # those names; the defaults are default_weights')
        default_weights(&self.weights)
        self.weights.line = parameters.get("line", self.weights.line)
        self.weights.later = parameters.get("later", self.weights.later)
        self.weights.column = parameters.get("column", self.weights.column)
        self.weights.row = parameters.get("row", self.weights.row)
        self.weights.colour_set = parameters.get("colour_set", self.weights.colour_set)
        self.weights.marker = parameters.get("marker", self.weights.marker)
        self.scale = value_scale

    cdef void values(self, const State* s, double* values) noexcept nogil:
        cdef int p, q, n = s.players
        cdef double e[4]
        cdef double v
        for p in range(n):
            # evaluate is p's value minus the best opponent's: min(., 0) is p's value minus the
            # best value of all, so differences between seats are differences of their values.
            e[p] = evaluate(s, p, &self.weights)
            if e[p] > 0:
                e[p] = 0
        for p in range(n):
            v = 0
            for q in range(n):
                if q != p:
                    v += 1.0 / (1.0 + exp((e[q] - e[p]) / self.scale))
            values[p] = v / (n - 1)


cdef class ScoreValue(Evaluator):
    """The result as if the game ended where the rollout stopped: the share of opponents behind
    on points (then complete rows; a tie counts half), end-of-game bonuses not counted."""

    def __init__(self, **parameters):
        pass

    cdef void values(self, const State* s, double* values) noexcept nogil:
        result_values(s, values)


# A layer of the network as a sum of the rows of its active inputs (NNUE's first layer): out = b +
# sum over j of value[j] * w[index[j]], w stored input by input (rows of ``width`` floats). The
# outputs are taken 32 at a time (then 4, then 1), their sums held in registers across the rows as
# vectors of 4 floats (GCC and Clang's vector extension: SSE on x86-64, NEON on ARM, plain code
# elsewhere); each output adds its rows in the order given, as one output at a time would.
cdef extern from *:
    """
    typedef float azul_v4 __attribute__((vector_size(16)));
    typedef float azul_v4u __attribute__((vector_size(16), aligned(4)));   /* unaligned loads */
    #define AZUL_ROW(j, t) (w + (long)index[j] * width + (t))

    static void azul_sparse_layer(int width, int n, const int* __restrict index,
                                  const float* __restrict value, const float* __restrict w,
                                  const float* __restrict b, float* __restrict out) {
        int t = 0, j, k;
        for (; t + 32 <= width; t += 32) {
            azul_v4 acc[8];
            for (k = 0; k < 8; k++) acc[k] = *(const azul_v4u*)(b + t + 4 * k);
            for (j = 0; j < n; j++) {
                const float* row = AZUL_ROW(j, t);
                float a = value[j];
                acc[0] += a * *(const azul_v4u*)(row);
                acc[1] += a * *(const azul_v4u*)(row + 4);
                acc[2] += a * *(const azul_v4u*)(row + 8);
                acc[3] += a * *(const azul_v4u*)(row + 12);
                acc[4] += a * *(const azul_v4u*)(row + 16);
                acc[5] += a * *(const azul_v4u*)(row + 20);
                acc[6] += a * *(const azul_v4u*)(row + 24);
                acc[7] += a * *(const azul_v4u*)(row + 28);
            }
            for (k = 0; k < 8; k++) *(azul_v4u*)(out + t + 4 * k) = acc[k];
        }
        for (; t + 4 <= width; t += 4) {
            azul_v4 acc = *(const azul_v4u*)(b + t);
            for (j = 0; j < n; j++) acc += value[j] * *(const azul_v4u*)AZUL_ROW(j, t);
            *(azul_v4u*)(out + t) = acc;
        }
        for (; t < width; t++) {
            float acc = b[t];
            for (j = 0; j < n; j++) acc += value[j] * *AZUL_ROW(j, t);
            out[t] = acc;
        }
    }
    """
    void azul_sparse_layer(int width, int n, const int* index, const float* value, const float* w,
                           const float* b, float* out) noexcept nogil

cdef enum:
    MAX_LAYERS = 8
    MAX_WIDTH = 256     # bots/value_file.py's MAX_WIDTH


cdef class LearnedValue(Evaluator):
    """A value network (bots/value_file.py) on each seat's view of the position (engine._rl's
    encoding): the seat's value is (1 + tanh output) / 2 (at 2 players, the mean of that and one
    minus the other seat's, so that the two values sum to 1). The bytes of the model come as the
    keyword ``model_bytes`` (the bot reads its ``model``).

    The file's input scaling (``(x - mean) * scale``) is folded into the first layer when the
    model is loaded (weights ``w0 * scale``, bias ``b0 - (w0 * scale) @ mean``), so that the raw
    observation feeds it: a zero input adds nothing, and the layer is the bias plus the weight
    rows of the few nonzero inputs (``encode_active``: a few dozen of the 361 at 2 players), each
    times its value. Every layer's weights are stored input by input (transposed, float32,
    contiguous), and each later layer sums the rows of its nonzero inputs (ReLU's zeros cost
    nothing) the same way."""
    cdef readonly int players
    cdef int inputs, n_layers
    cdef int sizes[MAX_LAYERS + 1]
    cdef float* params          # all weights and biases, one block
    cdef float* w[MAX_LAYERS]   # w[i]: (sizes[i], sizes[i+1]), input by input
    cdef float* b[MAX_LAYERS]

    def __init__(self, *, model_bytes=None, **parameters):
        from bots.value_file import read_model
        if model_bytes is None:
            raise ValueError("mcts: the value evaluator needs a model (its model_bytes)")
        header, arrays = read_model(bytes(model_bytes))
        if header["format"] != "azul-value/1":
            raise ValueError(f"mcts: a {header['format']} model is not a value network (azul-value/1)")
        layers = header["layers"]
        if len(layers) > MAX_LAYERS:
            raise ValueError(f"mcts: a value network of {len(layers)} layers; at most {MAX_LAYERS}")
        self.players, self.inputs, self.n_layers = header["players"], header["inputs"], len(layers)
        if self.inputs != observation_length(self.players):
            raise ValueError(f"mcts: the model takes {self.inputs} inputs, a {self.players}-player "
                             f"observation has {observation_length(self.players)}")
        self.sizes[0] = self.inputs
        for i, width in enumerate(layers):
            self.sizes[i + 1] = width
        # the folding, in float64 before the one rounding to float32
        w0 = arrays["w0"].astype(np.float64) * arrays["scale"].astype(np.float64)[None, :]
        blocks = [np.ascontiguousarray(w0.T), arrays["b0"] - w0 @ arrays["mean"].astype(np.float64)]
        for i in range(1, self.n_layers):
            blocks += [np.ascontiguousarray(arrays[f"w{i}"].T), arrays[f"b{i}"]]
        flat = np.concatenate([np.asarray(a, np.float32).ravel() for a in blocks])
        cdef float[::1] view = flat
        self.params = <float*>malloc(flat.shape[0] * sizeof(float))
        if self.params == NULL:
            raise MemoryError()
        memcpy(self.params, &view[0], flat.shape[0] * sizeof(float))
        cdef int at = 0
        for i in range(self.n_layers):
            self.w[i] = self.params + at
            at += self.sizes[i] * self.sizes[i + 1]
            self.b[i] = self.params + at
            at += self.sizes[i + 1]

    def __dealloc__(self):
        free(self.params)

    cdef double forward(self, int active, int* index, float* value) noexcept nogil:
        """The network's output, in [-1, 1], for the raw observation whose nonzero inputs are
        index[:active] with value[:active] (both overwritten: they carry each layer's nonzeros)."""
        cdef float h[MAX_WIDTH]
        cdef int i, k, n = active, width
        for k in range(self.n_layers):
            width = self.sizes[k + 1]
            azul_sparse_layer(width, n, index, value, self.w[k], self.b[k], h)
            if k == self.n_layers - 1:
                return tanh(h[0])
            n = 0
            for i in range(width):   # ReLU, and the next layer's nonzero inputs, without a branch
                index[n] = i
                value[n] = h[i]
                n += h[i] > 0
        return 0

    cdef void values(self, const State* s, double* values) noexcept nogil:
        cdef int index[MAX_OBSERVATION]
        cdef float value[MAX_OBSERVATION]
        cdef int p
        for p in range(s.players):
            if s.players != self.players:   # the bot refuses such games before its search
                values[p] = 0.5
                continue
            values[p] = 0.5 * (1.0 + self.forward(encode_active(s, p, index, value), index, value))
        if s.players == 2 and self.players == 2:   # both views in one zero-sum value
            values[0] = 0.5 * (values[0] + 1.0 - values[1])
            values[1] = 1.0 - values[0]

    def predict(self, const float[:, ::1] x):
        """The compiled forward pass on raw observations (rows of x), as a numpy array: each row's
        nonzero inputs summed as a position's are."""
        if x.shape[1] != self.inputs:
            raise ValueError(f"predict: rows of {x.shape[1]} floats, the model takes {self.inputs}")
        out = np.empty(x.shape[0], np.float64)
        cdef double[::1] o = out
        cdef int index[MAX_OBSERVATION]
        cdef float value[MAX_OBSERVATION]
        cdef Py_ssize_t r
        cdef int i, n
        for r in range(x.shape[0]):
            n = 0
            for i in range(self.inputs):
                index[n] = i
                value[n] = x[r, i]
                n += x[r, i] != 0
            o[r] = self.forward(n, index, value)
        return out


# ---------------------------------------------------------------- the n-tuple value
# The tables' places in one weight vector, in bots/ntuple.py's order (TUPLES, OFFSETS); a test
# checks these indices against that module's reference, computed from the observation.
cdef enum:
    NT_ROUNDS = 8
    NT_LINES = 26
    NT_MARGIN = 40
    NT_BIAS = 0
    NT_OWN_ROW = 1
    NT_OWN_COLUMN = NT_OWN_ROW + 5 * 32 * NT_LINES
    NT_OWN_COLOUR = NT_OWN_COLUMN + 5 * 32
    NT_OTHER = NT_OWN_COLOUR + 5 * 6 - NT_OWN_ROW   # other_* lie this far past own_*
    NT_SCORE = NT_OWN_ROW + 2 * NT_OTHER
    NT_MARGIN_AT = NT_SCORE + NT_ROUNDS * 32
    NT_MARKER = NT_MARGIN_AT + NT_ROUNDS * (NT_MARGIN + 1)
    NT_RACE = NT_MARKER + NT_ROUNDS * 5
    NT_SIZE = NT_RACE + NT_ROUNDS * 25
    NT_BOARD = 15                       # a board's indices: 5 rows, 5 columns, 5 colours
    NT_FEATURES = 1 + 4 * NT_BOARD + 4  # the most one view picks (4 players)

NTUPLE_SIZE = NT_SIZE


cdef inline int board_indices(const Board* b, int* out) noexcept nogil:
    """The board's 15 indices into the own_* tables (add NT_OTHER for other_*'s); returns the
    most tiles in one of its wall rows (at most 4)."""
    cdef int r, c, n, line, fullest = 0
    for r in range(5):
        n = b.line_count[r]
        line = 0 if n == 0 else 5 * b.line_colour[r] + (n if n < 5 else 5)
        out[r] = NT_OWN_ROW + (r * 32 + b.row_mask[r]) * NT_LINES + line
        n = POPCOUNT[b.row_mask[r]]
        fullest = n if n > fullest else fullest
    for c in range(5):
        out[5 + c] = NT_OWN_COLUMN + c * 32 + b.col_mask[c]
        n = b.colour_count[c]
        out[10 + c] = NT_OWN_COLOUR + c * 6 + (n if n < 5 else 5)
    return fullest if fullest < 4 else 4


cdef inline void position_indices(const State* s, int seat, int fullest, int others_fullest,
                                  int best, int* out) noexcept nogil:
    """The 4 indices of the whole position from ``seat``: score, margin, marker and race."""
    cdef int n = s.players, rnd = s.round - 2, score = s.boards[seat].score
    cdef int margin = score - best
    rnd = 0 if rnd < 0 else (NT_ROUNDS - 1 if rnd >= NT_ROUNDS else rnd)
    margin = -NT_MARGIN if margin < -NT_MARGIN else (NT_MARGIN if margin > NT_MARGIN else margin)
    out[0] = NT_SCORE + rnd * 32 + (score // 4 if score < 128 else 31)
    out[1] = NT_MARGIN_AT + rnd * (NT_MARGIN + 1) + (margin + NT_MARGIN) // 2
    out[2] = NT_MARKER + rnd * 5 + (4 if s.marker == NO_SEAT else (s.marker - seat + n) % n)
    out[3] = NT_RACE + (rnd * 5 + fullest) * 5 + others_fullest


cdef int ntuple_indices(const State* s, int seat, int* out) noexcept nogil:
    """Every index ``seat``'s view picks, in bots/ntuple.py's order; returns how many."""
    cdef int board[NT_BOARD]
    cdef int n = s.players, rel, q, i, at = 1, f, fullest = 0, others = 0, best = -1000000
    out[0] = NT_BIAS
    for rel in range(n):
        q = (seat + rel) % n
        f = board_indices(&s.boards[q], board)
        for i in range(NT_BOARD):
            out[at + i] = board[i] + (NT_OTHER if rel else 0)
        at += NT_BOARD
        if rel == 0:
            fullest = f
        else:
            others = f if f > others else others
            best = s.boards[q].score if s.boards[q].score > best else best
    position_indices(s, seat, fullest, others, best, out + at)
    return at + 4


def ntuple_features(state, int seat):
    """The table indices ``seat``'s view of a GameState at a round's end picks (bots/ntuple.py's
    ``features`` computes the same from the observation): what the n-tuple value sums."""
    cdef Core core = state._core
    cdef int out[NT_FEATURES]
    if core.s.phase != REFILL:
        raise ValueError(f"ntuple_features: a position at a round's end (phase refill), not in phase {state.phase}")
    if not 0 <= seat < core.s.players:
        raise ValueError(f"ntuple_features: seat {seat} is not a seat of a {core.s.players}-player game")
    cdef int n = ntuple_indices(&core.s, seat, out)
    return [out[i] for i in range(n)]


cdef class NTupleValue(Evaluator):
    """The n-tuple value (bots/ntuple.py) of an ``azul-ntuple/1`` model: each seat's view picks one
    entry per table and per board, and the seat's value is (1 + tanh of their sum) / 2 (at 2
    players the mean of that and one minus the other seat's, as ``LearnedValue``'s). A board's
    entries are looked up once for the view of its own seat and once for the others'."""
    cdef readonly int players
    cdef float* w

    def __init__(self, *, model_bytes=None, **parameters):
        from bots.ntuple import FORMAT, flat_weights
        from bots.value_file import read_model
        if model_bytes is None:
            raise ValueError("mcts: the value evaluator needs a model (its model_bytes)")
        header, arrays = read_model(bytes(model_bytes))
        if header["format"] != FORMAT:
            raise ValueError(f"mcts: a {header['format']} model is not an n-tuple value ({FORMAT})")
        flat = flat_weights(arrays)
        if flat.shape[0] != NT_SIZE:   # bots/ntuple.py and this file out of step
            raise ValueError(f"mcts: {flat.shape[0]} n-tuple weights; the compiled tables hold {NT_SIZE}")
        cdef float[::1] view = flat
        self.players = header["players"]
        self.w = <float*>malloc(NT_SIZE * sizeof(float))
        if self.w == NULL:
            raise MemoryError()
        memcpy(self.w, &view[0], NT_SIZE * sizeof(float))

    def __dealloc__(self):
        free(self.w)

    cdef void values(self, const State* s, double* values) noexcept nogil:
        cdef int board[NT_BOARD]
        cdef int here[4]
        cdef int fullest[4]
        cdef double own[4]
        cdef double other[4]
        cdef double others = 0, z
        cdef const float* w = self.w
        cdef int n = s.players, p, q, i, f, best
        if n != self.players:   # the bot refuses such games before its search
            for p in range(n):
                values[p] = 0.5
            return
        for p in range(n):
            fullest[p] = board_indices(&s.boards[p], board)
            own[p] = 0
            other[p] = 0
            for i in range(NT_BOARD):
                own[p] += w[board[i]]
                other[p] += w[board[i] + NT_OTHER]
            others += other[p]
        for p in range(n):
            f, best = 0, -1000000
            for q in range(n):
                if q != p:
                    f = fullest[q] if fullest[q] > f else f
                    best = s.boards[q].score if s.boards[q].score > best else best
            position_indices(s, p, fullest[p], f, best, here)
            z = w[NT_BIAS] + own[p] + (others - other[p]) + w[here[0]] + w[here[1]] + w[here[2]] + w[here[3]]
            values[p] = 0.5 * (1.0 + tanh(z))
        if n == 2:   # both views in one zero-sum value
            values[0] = 0.5 * (values[0] + 1.0 - values[1])
            values[1] = 1.0 - values[0]


def learned_value(*, model_bytes=None, **parameters):
    """``evaluator=value``: the learned value its model file holds, as the file's ``format`` says
    (``azul-value/1``: the network, ``LearnedValue``; ``azul-ntuple/1``: ``NTupleValue``)."""
    from bots.ntuple import FORMAT
    from bots.value_file import read_model
    if model_bytes is None:
        raise ValueError("mcts: the value evaluator needs a model (its model_bytes)")
    kind = read_model(bytes(model_bytes))[0]["format"]
    return (NTupleValue if kind == FORMAT else LearnedValue)(model_bytes=model_bytes, **parameters)


# The evaluators by the name the bot's ``evaluator`` parameter takes (its choices, in this order):
# each a subclass of Evaluator, or (``value``) a function that picks one by the model's kind.
EVALUATORS = {"heuristic": HeuristicValue, "score": ScoreValue, "value": learned_value}


def make_evaluator(str name, **parameters):
    """The evaluator registered as ``name``, built with the bot's parameters (``value_scale=...``)."""
    try:
        cls = EVALUATORS[name]
    except KeyError:
        raise ValueError(f"mcts: unknown evaluator {name!r} (known: {', '.join(EVALUATORS)})") from None
    return cls(**parameters)
