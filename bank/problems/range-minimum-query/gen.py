import random


def generate(n, q, seed, span=1000000000, wide=False):
    rng = random.Random(seed)
    lines = [f"{n} {q}", " ".join(str(rng.randint(-span, span)) for _ in range(n))]
    for _ in range(q):
        if wide:
            l, r = rng.randint(1, 10), rng.randint(max(1, n - 10), n)
            l = min(l, r)
        else:
            l = rng.randint(1, n)
            r = rng.randint(l, n)
        lines.append(f"{l} {r}")
    return "\n".join(lines) + "\n"
