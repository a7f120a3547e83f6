import sys
data = sys.stdin.read().split()
n = int(data[0])
a = data[1:1 + n]
best = 0
for i in range(n):
    seen = set()
    for j in range(i, n):
        if a[j] in seen:
            break
        seen.add(a[j])
    best = max(best, len(seen))
print(best)
