# The MCTS search's leaf evaluators (bots/_evaluators.pyx): each values the position a rollout
# stopped at, one value in [0, 1] per seat. bots/_mcts.pyx cimports this.
from engine._core cimport State

cdef class Evaluator:
    # Called by the search, without the GIL, at a rollout's cut-off (a round's end, the game not
    # over): writes values[p] for each seat p < s.players. Each evaluator is a subclass in
    # bots/_evaluators.pyx that overrides values, registered by name in its EVALUATORS.
    cdef void values(self, const State* s, double* values) noexcept nogil

cdef void result_values(const State* s, double* values) noexcept nogil
