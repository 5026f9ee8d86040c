# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""What the MCTS search (bots/_mcts.pyx) asks at a leaf: the value of the position its rollout
stopped at, per seat, in [0, 1], for the search to back up.

The search plays each rollout to its cut-off (the bot's ``rollout`` and ``cutoff``). A finished
game is valued by its result (``result_values``: the share of opponents beaten); a position at a
round's end, the game not over, by the bot's evaluator, chosen by its ``evaluator`` parameter from
``EVALUATORS``. An evaluator is a subclass of ``Evaluator`` whose ``values`` runs in C without
the GIL; it is built once per bot with the bot's parameters as keywords (``value_scale=8.0, ...``;
``value``, the learned network, also gets the model's bytes as ``model_bytes``)
and reads the ones it uses. A new one is a subclass here plus its entry in ``EVALUATORS`` (docs/bots.md).
"""
from libc.math cimport exp, tanh
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy

from engine._core cimport Core, State, Board, REFILL, complete_rows
from engine._rl cimport encode, observation_length, MAX_OBSERVATION
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


# The forward pass's loop in C with restrict pointers, so that the compiler vectorises it: y += a * x
# (a layer is a sum of its weight rows scaled by its nonzero inputs: ReLU and the observation
# leave many zeros, and a dot product in floats would not vectorise without reassociation).
cdef extern from *:
    """
    static inline void azul_axpy(int n, float a, const float* __restrict x, float* __restrict y) {
        for (int i = 0; i < n; i++) y[i] += a * x[i];
    }
    """
    void azul_axpy(int n, float a, const float* x, float* y) noexcept nogil

cdef enum:
    MAX_LAYERS = 8
    MAX_WIDTH = 256     # bots/value_file.py's MAX_WIDTH


cdef class LearnedValue(Evaluator):
    """A value network (bots/value_file.py) on each seat's view of the position (engine._rl's
    encode): the seat's value is (1 + tanh output) / 2 (at 2 players, the mean of that and one
    minus the other seat's, so that the two values sum to 1). The bytes of the model come as the
    keyword ``model_bytes`` (the bot reads its ``model``); the first layer's input scaling is
    folded into its weights, and every layer's weights are stored input by input, so that zero
    inputs (most of the observation, ReLU's zeros) cost nothing."""
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

    cdef double forward(self, const float* x) noexcept nogil:
        """The network's output, in [-1, 1], for one raw observation x."""
        cdef float h[2][MAX_WIDTH]
        cdef int nonzero[MAX_OBSERVATION]
        cdef const float* src = x
        cdef float* dst
        cdef int i, j, k, n, width
        for k in range(self.n_layers):
            dst = h[k & 1]
            width = self.sizes[k + 1]
            memcpy(dst, self.b[k], width * sizeof(float))
            n = 0
            for i in range(self.sizes[k]):   # the nonzero inputs, without a branch per input
                nonzero[n] = i
                n += src[i] != 0
            for j in range(n):
                i = nonzero[j]
                azul_axpy(width, src[i], self.w[k] + i * width, dst)
            if k < self.n_layers - 1:
                for j in range(self.sizes[k + 1]):
                    if dst[j] < 0:
                        dst[j] = 0
            src = dst
        return tanh(src[0])

    cdef void values(self, const State* s, double* values) noexcept nogil:
        cdef float x[MAX_OBSERVATION]
        cdef int p
        for p in range(s.players):
            if s.players != self.players:   # the bot refuses such games before its search
                values[p] = 0.5
                continue
            encode(s, p, x)
            values[p] = 0.5 * (1.0 + self.forward(x))
        if s.players == 2 and self.players == 2:   # both views in one zero-sum value
            values[0] = 0.5 * (values[0] + 1.0 - values[1])
            values[1] = 1.0 - values[0]

    def predict(self, const float[:, ::1] x):
        """The compiled forward pass on raw observations (rows of x), as a numpy array."""
        if x.shape[1] != self.inputs:
            raise ValueError(f"predict: rows of {x.shape[1]} floats, the model takes {self.inputs}")
        out = np.empty(x.shape[0], np.float64)
        cdef double[::1] o = out
        cdef Py_ssize_t r
        for r in range(x.shape[0]):
            o[r] = self.forward(&x[r, 0])
        return out


# The evaluators by the name the bot's ``evaluator`` parameter takes (its choices, in this order).
EVALUATORS = {"heuristic": HeuristicValue, "score": ScoreValue, "value": LearnedValue}


def make_evaluator(str name, **parameters):
    """The evaluator registered as ``name``, built with the bot's parameters (``value_scale=...``)."""
    try:
        cls = EVALUATORS[name]
    except KeyError:
        raise ValueError(f"mcts: unknown evaluator {name!r} (known: {', '.join(EVALUATORS)})") from None
    return cls(**parameters)
