import random


def generate(n, seed, hi=1000000000, shape=None):
    rng = random.Random(seed)
    values = [rng.randint(0, hi) for _ in range(n)]
    if shape == "valley":
        half = sorted(values[: n // 2], reverse=True)
        values = half + sorted(values[n // 2:])
    return f"{n}\n" + " ".join(map(str, values)) + "\n"
