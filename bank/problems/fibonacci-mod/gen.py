import random


def generate(t, seed, hi=1000000000000000000):
    rng = random.Random(seed)
    return f"{t}\n" + "\n".join(str(rng.randint(0, hi)) for _ in range(t)) + "\n"
