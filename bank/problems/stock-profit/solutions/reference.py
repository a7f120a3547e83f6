import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
low = None
best = 0
for p in map(int, data[1:1 + n]):
    if low is None or p < low:
        low = p
    elif p - low > best:
        best = p - low
print(best)
