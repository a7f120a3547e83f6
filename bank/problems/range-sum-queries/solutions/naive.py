import sys
data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
idx = 2 + n
out = []
for _ in range(q):
    l, r = int(data[idx]), int(data[idx + 1]); idx += 2
    s = 0
    for i in range(l - 1, r):
        s += a[i]
    out.append(s)
print("\n".join(map(str, out)))
