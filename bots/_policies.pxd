# Compiled move policies and evaluation over the engine's C state, shared by the greedy and
# heuristic bots and by MCTS rollouts. All take the position of the seat to move.
from engine._core cimport State, Rng

cdef struct Weights:
    double placeholder          # the heuristic's weights; fields defined with the heuristic

cdef int greedy_move(const State* s, Rng* rng) noexcept nogil
cdef int heuristic_move(const State* s, Rng* rng, const Weights* w) noexcept nogil
cdef double evaluate(const State* s, int seat, const Weights* w) noexcept nogil
cdef void default_weights(Weights* w) noexcept nogil
