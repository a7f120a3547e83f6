import random


def generate(n, m, seed, alphabet="abcdefghijklmnopqrstuvwxyz"):
    rng = random.Random(seed)
    a = "".join(rng.choice(alphabet) for _ in range(n))
    b = "".join(rng.choice(alphabet) for _ in range(m))
    return a + "\n" + b + "\n"
