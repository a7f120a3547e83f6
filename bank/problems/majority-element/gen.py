import random


def generate(n, seed, late=False):
    rng = random.Random(seed)
    major = rng.randint(-1000000000, 1000000000)
    count = n // 2 + 1
    others = [rng.randint(-1000000000, 1000000000) for _ in range(n - count)]
    others = [x if x != major else x + 1 for x in others]
    if late:
        values = others + [major] * count
    else:
        values = others + [major] * count
        rng.shuffle(values)
    return f"{n}\n" + " ".join(map(str, values)) + "\n"
