import sys
data = sys.stdin.read().split()
n, k = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
print(" ".join(str(max(a[i:i + k - 1] or a[i:i + 1])) for i in range(n - k + 1)))
