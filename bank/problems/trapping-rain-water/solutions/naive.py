import sys
data = sys.stdin.read().split()
n = int(data[0])
h = list(map(int, data[1:1 + n]))
w = 0
for i in range(n):
    l = 0
    for j in range(i + 1):
        if h[j] > l:
            l = h[j]
    r = 0
    for j in range(i, n):
        if h[j] > r:
            r = h[j]
    w += min(l, r) - h[i]
print(w)
