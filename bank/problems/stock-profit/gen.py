import random


def generate(n, seed, hi=1000000000, falling=False):
    rng = random.Random(seed)
    values = [rng.randint(1, hi) for _ in range(n)]
    if falling:
        values.sort(reverse=True)
    return f"{n}\n" + " ".join(map(str, values)) + "\n"
