import sys
data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
pos = 2 + n
out = []
for _ in range(q):
    l, r = int(data[pos]), int(data[pos + 1]); pos += 2
    m = a[l - 1]
    for i in range(l, r):
        if a[i] < m:
            m = a[i]
    out.append(m)
print("\n".join(map(str, out)))
