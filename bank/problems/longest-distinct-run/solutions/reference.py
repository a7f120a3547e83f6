import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
last = {}
start = best = 0
for i, x in enumerate(data[1:1 + n]):
    j = last.get(x)
    if j is not None and j >= start:
        start = j + 1
    last[x] = i
    if i - start + 1 > best:
        best = i - start + 1
print(best)
