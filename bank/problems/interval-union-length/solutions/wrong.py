import sys
data = sys.stdin.read().split()
n = int(data[0])
v = list(map(int, data[1:1 + 2 * n]))
print(sum(v[i + 1] - v[i] for i in range(0, 2 * n, 2)))
