import sys
data = sys.stdin.read().split()
n = int(data[0])
v = list(map(int, data[1:1 + 2 * n]))
merged = []
for i in range(0, 2 * n, 2):
    l, r = v[i], v[i + 1]
    keep = []
    for a, b in merged:
        if b < l or a > r:
            keep.append((a, b))
        else:
            l, r = min(l, a), max(r, b)
    keep.append((l, r))
    merged = keep
print(sum(b - a for a, b in merged))
