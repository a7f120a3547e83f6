import sys
sys.setrecursionlimit(10000)
a, b = sys.stdin.read().split()[:2]
def d(i, j):
    if i == 0:
        return j
    if j == 0:
        return i
    if a[i - 1] == b[j - 1]:
        return d(i - 1, j - 1)
    return 1 + min(d(i - 1, j), d(i, j - 1), d(i - 1, j - 1))
print(d(len(a), len(b)))
