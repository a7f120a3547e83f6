import random


def generate(n, q, seed, span=1000000000, wide=False):
    rng = random.Random(seed)
    lines = [f"{n} {q}", " ".join(str(rng.randint(-span, span)) for _ in range(n))]
    for _ in range(q):
        if rng.random() < 0.5:
            lines.append(f"1 {rng.randint(1, n)} {rng.randint(-span, span)}")
        elif wide:
            lines.append(f"2 {rng.randint(1, 10)} {rng.randint(n - 10, n)}")
        else:
            l = rng.randint(1, n)
            lines.append(f"2 {l} {rng.randint(l, n)}")
    return "\n".join(lines) + "\n"
