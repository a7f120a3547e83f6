import sys
data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
a = [0] + list(map(int, data[2:2 + n]))
pos = 2 + n
out = []
for _ in range(q):
    op, x, y = data[pos], int(data[pos + 1]), int(data[pos + 2]); pos += 3
    if op == "1":
        a[x] = y
    else:
        s = 0
        for i in range(x, y + 1):
            s += a[i]
        out.append(s)
print("\n".join(map(str, out)))
