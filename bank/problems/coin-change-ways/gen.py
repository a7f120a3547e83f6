import random


def generate(n, s, seed, hi=100):
    rng = random.Random(seed)
    coins = rng.sample(range(1, hi + 1), n)
    return f"{n} {s}\n" + " ".join(map(str, coins)) + "\n"
