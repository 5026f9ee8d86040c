# The policy prior's move features and scores in C (bots/_prior.pyx): MCTS's PUCT selection and its rollout policy "prior" read them.
from engine._core cimport State, Rng

cdef enum:
    NFEATURES = 14           # features a move (bots/_prior.pyx FEATURES)

cdef void move_features(const State* s, const int* moves, int n, float* out) noexcept nogil
cdef void prior_of(const State* s, const int* moves, int n, const double* weights, double* out) noexcept nogil
cdef int prior_move(const State* s, Rng* rng, const double* weights) noexcept nogil
