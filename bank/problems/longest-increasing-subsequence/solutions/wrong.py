import sys
from bisect import bisect_right
data = sys.stdin.read().split()
n = int(data[0])
t = []
for x in map(int, data[1:1 + n]):
    i = bisect_right(t, x)
    if i == len(t):
        t.append(x)
    else:
        t[i] = x
print(len(t))
