# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Placeholder bodies with the final signatures (greedy and heuristic land next)."""
from engine._core cimport State, Rng, random_move


cdef int greedy_move(const State* s, Rng* rng) noexcept nogil:
    return random_move(s, rng)


cdef int heuristic_move(const State* s, Rng* rng, const Weights* w) noexcept nogil:
    return random_move(s, rng)


cdef double evaluate(const State* s, int seat, const Weights* w) noexcept nogil:
    return s.boards[seat].score


cdef void default_weights(Weights* w) noexcept nogil:
    w.placeholder = 0
