import random


def generate(n, seed, lo=-1000000000, hi=1000000000):
    rng = random.Random(seed)
    return f"{n}\n" + " ".join(str(rng.randint(lo, hi)) for _ in range(n)) + "\n"
