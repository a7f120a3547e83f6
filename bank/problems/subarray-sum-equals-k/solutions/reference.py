import sys
from collections import defaultdict
data = sys.stdin.buffer.read().split()
n, k = int(data[0]), int(data[1])
counts = defaultdict(int)
counts[0] = 1
s = total = 0
for x in map(int, data[2:2 + n]):
    s += x
    total += counts[s - k]
    counts[s] += 1
print(total)
