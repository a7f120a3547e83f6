import sys
data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
parent = list(range(n + 1))
def find(x):
    while parent[x] != x:
        x = parent[x]
    return x
pos = 2
for _ in range(q):
    op, a, b = data[pos], int(data[pos + 1]), int(data[pos + 2]); pos += 3
    if op == "U":
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[a] = rb
    else:
        print("YES" if find(a) == find(b) else "NO")
