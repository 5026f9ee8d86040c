# The seed derivation of tournament/scheduler.py in C: scheduler.derive_seed hashes with it, and
# the compiled league loop works out each round's and each bot's seed with it.
from libc.stdint cimport uint8_t, uint32_t, uint64_t

cdef enum:
    MAX_ID = 200    # bytes of a game id bot_seed_of takes at most

cdef uint64_t seed_of_text(const uint8_t* text, size_t n) noexcept nogil
cdef uint64_t round_seed_of(uint64_t deal_seed, uint32_t rnd) noexcept nogil
cdef uint64_t bot_seed_of(uint64_t bot_seed, const uint8_t* game_id, int id_len, uint32_t copy) noexcept nogil
