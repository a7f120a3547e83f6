import random


def generate(n, seed, lo=-1000000000, hi=1000000000, order=None):
    rng = random.Random(seed)
    values = [rng.randint(lo, hi) for _ in range(n)]
    if order == "asc":
        values.sort()
    elif order == "desc":
        values.sort(reverse=True)
    return f"{n}\n" + " ".join(map(str, values)) + "\n"
