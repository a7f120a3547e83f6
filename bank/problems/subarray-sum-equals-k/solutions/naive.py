import sys
data = sys.stdin.read().split()
n, k = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
total = 0
for i in range(n):
    s = 0
    for j in range(i, n):
        s += a[j]
        if s == k:
            total += 1
print(total)
