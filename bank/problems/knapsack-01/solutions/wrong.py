import sys
data = sys.stdin.read().split()
n, cap = int(data[0]), int(data[1])
best = [0] * (cap + 1)
for i in range(n):
    w, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    for c in range(w, cap + 1):
        best[c] = max(best[c], best[c - w] + v)
print(best[cap])
