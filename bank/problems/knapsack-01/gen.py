import random


def generate(n, cap, seed, wmax=100, vmax=1000):
    rng = random.Random(seed)
    lines = [f"{n} {cap}"]
    lines += [f"{rng.randint(1, wmax)} {rng.randint(0, vmax)}" for _ in range(n)]
    return "\n".join(lines) + "\n"
