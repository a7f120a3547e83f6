import sys
data = sys.stdin.buffer.read().split()
n, cap = int(data[0]), int(data[1])
best = [0] * (cap + 1)
for i in range(n):
    w, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    if w > cap:
        continue
    # best[c] = max(best[c], best[c - w] + v), capacities high to low, done slice-wise
    shifted = [x + v for x in best[:cap + 1 - w]]
    best[w:] = map(max, best[w:], shifted)
print(best[cap])
