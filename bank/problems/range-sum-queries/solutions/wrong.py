import sys
data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
p = [0]
for x in a:
    p.append(p[-1] + x)
idx = 2 + n
for _ in range(q):
    l, r = int(data[idx]), int(data[idx + 1]); idx += 2
    print(p[r - 1] - p[l - 1])
