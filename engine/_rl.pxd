# The one compiled encoder of a position (engine/_rl.pyx): a seat's view of the core's State as
# floats, the RL observation (docs/rl.md) and the value network's input (bots/_evaluators.pyx,
# learn/data.py) alike; encode_active, its nonzero entries (what the value network's first layer
# sums). Callable without the GIL.
from engine._core cimport State

cdef enum:
    MAX_OBSERVATION = 720   # the longest observation (4 players, 9 factories: 699 floats)

cdef int observation_length(int players) noexcept nogil
cdef void encode(const State* s, int seat, float* out) noexcept nogil
cdef int encode_active(const State* s, int seat, int* index, float* value) noexcept nogil
