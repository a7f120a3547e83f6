import sys
data = sys.stdin.read().split()
n, cap = int(data[0]), int(data[1])
items = [(int(data[2 + 2 * i]), int(data[3 + 2 * i])) for i in range(n)]
def go(i, left):
    if i == n:
        return 0
    best = go(i + 1, left)
    w, v = items[i]
    if w <= left:
        best = max(best, v + go(i + 1, left - w))
    return best
print(go(0, cap))
