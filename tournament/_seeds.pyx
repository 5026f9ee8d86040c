# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Seeds from text: BLAKE2b (RFC 7693) with an 8-byte digest, read big-endian and shifted right
once (63 bits). The one implementation of tournament/scheduler.py's ``derive_seed``, which
hashes its joined parts here; the compiled league loop (tournament/_fastloop.pyx) builds the
texts of a round's deal seed and of a bot's game seed in C (``round_seed_of``, ``bot_seed_of``)
and hashes them here too, so it works out the seeds the scheduler gives without Python.
"""
from libc.string cimport memcpy, memset

cdef uint64_t B2_IV[8]
B2_IV[:] = [0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
            0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL]
cdef uint8_t B2_SIGMA[10][16]
B2_SIGMA[:] = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
               [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
               [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
               [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
               [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
               [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
               [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
               [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
               [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
               [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0]]

cdef inline uint64_t rotr(uint64_t x, int n) noexcept nogil:
    return (x >> n) | (x << (64 - n))

cdef inline void b2_g(uint64_t* v, int a, int b, int c, int d, uint64_t x, uint64_t y) noexcept nogil:
    v[a] = v[a] + v[b] + x
    v[d] = rotr(v[d] ^ v[a], 32)
    v[c] = v[c] + v[d]
    v[b] = rotr(v[b] ^ v[c], 24)
    v[a] = v[a] + v[b] + y
    v[d] = rotr(v[d] ^ v[a], 16)
    v[c] = v[c] + v[d]
    v[b] = rotr(v[b] ^ v[c], 63)

cdef void b2_compress(uint64_t* h, const uint8_t* block, uint64_t t, bint last) noexcept nogil:
    cdef uint64_t v[16]
    cdef uint64_t m[16]
    cdef int i, j
    cdef const uint8_t* z
    for i in range(16):
        m[i] = 0
        for j in range(8):
            m[i] |= (<uint64_t>block[i * 8 + j]) << (8 * j)
    for i in range(8):
        v[i] = h[i]
        v[i + 8] = B2_IV[i]
    v[12] ^= t
    if last:
        v[14] = ~v[14]
    for i in range(12):
        z = B2_SIGMA[i % 10]
        b2_g(v, 0, 4, 8, 12, m[z[0]], m[z[1]])
        b2_g(v, 1, 5, 9, 13, m[z[2]], m[z[3]])
        b2_g(v, 2, 6, 10, 14, m[z[4]], m[z[5]])
        b2_g(v, 3, 7, 11, 15, m[z[6]], m[z[7]])
        b2_g(v, 0, 5, 10, 15, m[z[8]], m[z[9]])
        b2_g(v, 1, 6, 11, 12, m[z[10]], m[z[11]])
        b2_g(v, 2, 7, 8, 13, m[z[12]], m[z[13]])
        b2_g(v, 3, 4, 9, 14, m[z[14]], m[z[15]])
    for i in range(8):
        h[i] ^= v[i] ^ v[i + 8]

cdef uint64_t seed_of_text(const uint8_t* text, size_t n) noexcept nogil:
    """derive_seed's value of a text of n bytes (any length)."""
    cdef uint64_t h[8]
    cdef uint8_t block[128]
    cdef size_t done = 0, k
    cdef uint64_t out = 0
    cdef int i
    for i in range(8):
        h[i] = B2_IV[i]
    h[0] ^= 0x01010008ULL  # digest 8 bytes, no key, fanout 1, depth 1
    while True:
        k = n - done if n - done < 128 else 128
        memset(block, 0, 128)
        if k:
            memcpy(block, text + done, k)
        done += k
        b2_compress(h, block, done, done >= n)
        if done >= n:
            break
    for i in range(8):
        out = (out << 8) | ((h[0] >> (8 * i)) & 0xff)
    return out >> 1

cdef int put_uint(uint8_t* out, uint64_t x) noexcept nogil:
    """x in decimal at out (as str(x)); returns its length."""
    cdef uint8_t digits[20]
    cdef int n = 0, i
    while True:
        digits[n] = 48 + x % 10
        x //= 10
        n += 1
        if x == 0:
            break
    for i in range(n):
        out[i] = digits[n - 1 - i]
    return n

cdef uint64_t round_seed_of(uint64_t deal_seed, uint32_t rnd) noexcept nogil:
    """scheduler.round_seed(deal_seed, rnd): the seed of text "<deal_seed>\x1fround\x1f<rnd>"."""
    cdef uint8_t text[64]
    cdef int n = put_uint(text, deal_seed)
    memcpy(text + n, b"\x1fround\x1f", 7)
    n += 7
    n += put_uint(text + n, rnd)
    return seed_of_text(text, n)

cdef uint64_t bot_seed_of(uint64_t bot_seed, const uint8_t* game_id, int id_len, uint32_t copy) noexcept nogil:
    """scheduler.bot_game_seed(bot_seed, game_id, copy) for a game id of at most MAX_ID bytes."""
    cdef uint8_t text[MAX_ID + 64]
    cdef int n = put_uint(text, bot_seed)
    memcpy(text + n, b"\x1fgame\x1f", 6)
    n += 6
    memcpy(text + n, game_id, id_len)
    n += id_len
    if copy:
        memcpy(text + n, b"\x1fcopy\x1f", 6)
        n += 6
        n += put_uint(text + n, copy)
    return seed_of_text(text, n)


def seed_of(bytes text not None):
    """The 63-bit seed of a text: what scheduler.derive_seed returns for its joined parts."""
    return seed_of_text(<const uint8_t*><const char*>text, len(text))

def round_seed(uint64_t deal_seed, uint32_t rnd):
    """round_seed_of, as the compiled loop works it out (for the tests)."""
    return round_seed_of(deal_seed, rnd)

def bot_seed(uint64_t seed, str game_id, uint32_t copy=0):
    """bot_seed_of, as the compiled loop works it out (for the tests)."""
    cdef bytes text = game_id.encode()
    if len(text) > MAX_ID:
        raise ValueError(f"game id of {len(text)} bytes, longer than {MAX_ID}")
    return bot_seed_of(seed, text, len(text), copy)
