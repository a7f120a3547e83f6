import random


def generate(n, seed, hi=1000000000, width=None, disjoint=False):
    rng = random.Random(seed)
    lines = [str(n)]
    if disjoint:
        starts = sorted(rng.sample(range(0, hi // 2), n))
        spans = [(2 * s, 2 * s + 1) for s in starts]
        rng.shuffle(spans)
    else:
        spans = []
        for _ in range(n):
            l = rng.randint(0, hi - 1)
            w = rng.randint(1, width) if width else rng.randint(1, hi - l)
            spans.append((l, min(hi, l + w)))
    lines += [f"{l} {r}" for l, r in spans]
    return "\n".join(lines) + "\n"
