import sys
a, b = sys.stdin.read().split()[:2]
n, m = len(a), len(b)
prev = [0] * (m + 1)
for i in range(1, n + 1):
    cur = [0] * (m + 1)
    for j in range(1, m + 1):
        cur[j] = prev[j - 1] + 1 if a[i - 1] == b[j - 1] else max(prev[j], cur[j - 1])
    prev = cur
print(n + m - 2 * prev[m])
