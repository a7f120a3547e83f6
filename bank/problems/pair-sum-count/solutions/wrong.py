import sys
data = sys.stdin.read().split()
n, k = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
s = set(a)
print(sum(1 for x in s if k - x in s and x < k - x))
