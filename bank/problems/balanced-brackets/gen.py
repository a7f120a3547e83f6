import random


def generate(t, length, seed, balanced_bias=0.7, nested=False):
    rng = random.Random(seed)
    pairs = ["()", "[]", "{}"]
    lines = [str(t)]
    for _ in range(t):
        if nested:
            opens = "".join(rng.choice(pairs)[0] for _ in range(length // 2))
            closes = "".join({"(": ")", "[": "]", "{": "}"}[c] for c in reversed(opens))
            lines.append(opens + closes)
            continue
        if rng.random() < balanced_bias:
            stack, out = [], []
            while len(out) < length:
                if stack and (rng.random() < 0.5 or len(out) + len(stack) >= length):
                    out.append(stack.pop())
                else:
                    o, c = rng.choice(pairs)
                    out.append(o)
                    stack.append(c)
            out.extend(reversed(stack))
            s = "".join(out)
            if rng.random() < 0.4:
                i = rng.randrange(len(s))
                s = s[:i] + rng.choice("()[]{}") + s[i + 1:]
            lines.append(s)
        else:
            lines.append("".join(rng.choice("()[]{}") for _ in range(length)))
    return "\n".join(lines) + "\n"
