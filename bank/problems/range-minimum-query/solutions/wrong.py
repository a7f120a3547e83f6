import sys
data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
pos = 2 + n
for _ in range(q):
    l, r = int(data[pos]), int(data[pos + 1]); pos += 2
    print(min(a[l - 1:r - 1] or a[l - 1:l]))
