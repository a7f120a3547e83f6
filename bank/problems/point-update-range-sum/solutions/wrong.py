import sys
data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
a = [0] + list(map(int, data[2:2 + n]))
pos = 2 + n
for _ in range(q):
    op, x, y = data[pos], int(data[pos + 1]), int(data[pos + 2]); pos += 3
    if op == "1":
        a[x] += y
    else:
        print(sum(a[x:y + 1]))
