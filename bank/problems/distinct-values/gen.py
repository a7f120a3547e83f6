import random


def generate(n, seed, span=1000000000):
    rng = random.Random(seed)
    return f"{n}\n" + " ".join(str(rng.randint(-span, span)) for _ in range(n)) + "\n"
