import random


def generate(n, q, seed, unions=0.5, chain=False):
    rng = random.Random(seed)
    lines = [f"{n} {q}"]
    for i in range(q):
        if chain and i < n - 1:
            lines.append(f"U {i + 1} {i + 2}")
            continue
        op = "U" if rng.random() < unions else "Q"
        lines.append(f"{op} {rng.randint(1, n)} {rng.randint(1, n)}")
    return "\n".join(lines) + "\n"
