# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""What the MCTS search (bots/_mcts.pyx) asks at a leaf: the value of the position its rollout
stopped at, per seat, in [0, 1], for the search to back up.

The search plays each rollout to its cut-off (the bot's ``rollout`` and ``cutoff``). A finished
game is valued by its result (``result_values``: the share of opponents beaten); a position at a
round's end, the game not over, by the bot's evaluator, chosen by its ``evaluator`` parameter from
``EVALUATORS``. An evaluator is a subclass of ``Evaluator`` whose ``values`` runs in C without
the GIL; it is built once per bot with the bot's parameters as keywords (``value_scale=8.0, ...``)
and reads the ones it uses. A new one is a subclass here plus its entry in ``EVALUATORS`` (docs/bots.md).
"""
from libc.math cimport exp

from engine._core cimport Core, State, Board, REFILL, complete_rows
from bots._policies cimport Weights, evaluate, default_weights


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


# The evaluators by the name the bot's ``evaluator`` parameter takes (its choices, in this order).
EVALUATORS = {"heuristic": HeuristicValue, "score": ScoreValue}


def make_evaluator(str name, **parameters):
    """The evaluator registered as ``name``, built with the bot's parameters (``value_scale=...``)."""
    try:
        cls = EVALUATORS[name]
    except KeyError:
        raise ValueError(f"mcts: unknown evaluator {name!r} (known: {', '.join(EVALUATORS)})") from None
    return cls(**parameters)
