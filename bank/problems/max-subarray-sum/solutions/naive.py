import sys
data = sys.stdin.read().split()
n = int(data[0]); a = list(map(int, data[1:1 + n]))
best = a[0]
for i in range(n):
    s = 0
    for j in range(i, n):
        s += a[j]
        if s > best:
            best = s
print(best)
