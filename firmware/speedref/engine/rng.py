# A seeded PRNG of our own, so one seed deals the identical game on CPython and
# MicroPython (their `random` modules differ).  xorshift32 (Marsaglia 2003).
_MASK = 0xFFFFFFFF


class Rng:
    def __init__(self, seed):
        s = seed & _MASK
        self.s = s if s else 0x9E3779B9  # xorshift must never hold 0

    def next32(self):
        s = self.s
        s ^= (s << 13) & _MASK
        s ^= s >> 17
        s ^= (s << 5) & _MASK
        self.s = s
        return s

    def below(self, n):
        # Rejection sampling: unbiased, and identical on both runtimes.
        if n <= 0:
            raise ValueError("below(n) needs n > 0")
        limit = _MASK - (_MASK + 1) % n
        while True:
            r = self.next32()
            if r <= limit:
                return r % n

    def shuffle(self, seq):
        # Fisher-Yates in place; works on lists and bytearrays.
        i = len(seq) - 1
        while i > 0:
            j = self.below(i + 1)
            seq[i], seq[j] = seq[j], seq[i]
            i -= 1
        return seq
