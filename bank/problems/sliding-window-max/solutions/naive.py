import sys
data = sys.stdin.read().split()
n, k = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
out = []
for i in range(n - k + 1):
    m = a[i]
    for j in range(i, i + k):
        if a[j] > m:
            m = a[j]
    out.append(m)
print(" ".join(map(str, out)))
