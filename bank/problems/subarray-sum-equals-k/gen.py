import random


def generate(n, seed, span=5):
    rng = random.Random(seed)
    values = [rng.randint(-span, span) for _ in range(n)]
    k = rng.randint(-span, span)
    return f"{n} {k}\n" + " ".join(map(str, values)) + "\n"
