import sys
data = sys.stdin.read().split()
n = int(data[0])
a = list(map(int, data[1:1 + n]))
res = []
for i in range(n):
    r = -1
    for j in range(i + 1, n):
        if a[j] > a[i]:
            r = a[j]
            break
    res.append(r)
print(" ".join(map(str, res)))
