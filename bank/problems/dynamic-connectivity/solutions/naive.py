import sys
data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
label = list(range(n + 1))
pos = 2
out = []
for _ in range(q):
    op, a, b = data[pos], int(data[pos + 1]), int(data[pos + 2]); pos += 3
    if op == "U":
        la, lb = label[a], label[b]
        if la != lb:
            for i in range(1, n + 1):
                if label[i] == lb:
                    label[i] = la
    else:
        out.append("YES" if label[a] == label[b] else "NO")
print("\n".join(out))
