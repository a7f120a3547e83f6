import random


def generate(n, m, seed, wmax=1000000000, chain=False):
    rng = random.Random(seed)
    edges = []
    if chain:
        order = list(range(2, n + 1))
        rng.shuffle(order)
        prev = 1
        for v in order:
            edges.append((prev, v, rng.randint(0, wmax)))
            prev = v
    while len(edges) < m:
        edges.append((rng.randint(1, n), rng.randint(1, n), rng.randint(0, wmax)))
    rng.shuffle(edges)
    return f"{n} {len(edges)}\n" + "\n".join(f"{u} {v} {w}" for u, v, w in edges) + "\n"
