# Compiled move policies and evaluation over the engine's C state, shared by the greedy and
# heuristic bots and by MCTS rollouts. All take the position of the seat to move.
from engine._core cimport State, Rng

cdef struct Weights:
    # The heuristic's weights (docs/bots.md explains each; default_weights sets the defaults).
    double line          # partial pattern lines: weight on (chance to complete) x (points it scores)
    double later         # chance a line short of tiles this round completes in a later round
    double column        # weight on the column bonus (7) potential, (tiles / 5)^2 of it
    double row           # weight on the row bonus (2) potential
    double colour_set    # weight on the colour-set bonus (10) potential
    double floor_risk    # points per tile this seat is likely to be forced to floor this round
    double marker        # points for opening the next round (holding the marker)
    double denial        # weight on the best opponent's value (1: pure difference)
    double reply         # weight on the next player's best immediate (greedy) reply value

cdef struct Plan:
    # A plan intervention's weights (bots/intervention.py; docs/bots.md, "Plans"), in points.
    double colours       # per tile towards a colour set, as plan_potential counts tiles
    double columns       # per tile towards a column
    double rows          # per tile towards a row
    double deny          # per point of greedy value the move takes from the next seat's best draft

cdef int greedy_move(const State* s, Rng* rng) noexcept nogil
cdef int heuristic_move(const State* s, Rng* rng, const Weights* w) noexcept nogil
cdef int greedy_pick(const State* s, Rng* rng, const int* moves, int n) noexcept nogil
cdef int greedy_draft(const State* s, Rng* rng, int* count) noexcept nogil
cdef void draft_values(const State* s, const int* moves, int n, int* out) noexcept nogil
cdef int heuristic_pick(const State* s, Rng* rng, const Weights* w, const int* moves, int n) noexcept nogil
cdef int keep_allowed(int* moves, int n, allowed) except -1
cdef double evaluate(const State* s, int seat, const Weights* w) noexcept nogil
cdef void default_weights(Weights* w) noexcept nogil
cdef void plan_start(const State* s, const Plan* plan, double* before) noexcept nogil
cdef double plan_bias(const State* s, int code, const Plan* plan, const double* before) noexcept nogil
cdef int planned_pick(const State* s, Rng* rng, bint greedy, const Weights* w, const Plan* plan,
                      const int* moves, int n) noexcept nogil
