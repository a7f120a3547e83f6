import random


def generate(n, seed, span=10):
    rng = random.Random(seed)
    k = rng.randint(-span, span)
    return f"{n} {k}\n" + " ".join(str(rng.randint(-span, span)) for _ in range(n)) + "\n"
