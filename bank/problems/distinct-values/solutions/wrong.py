import sys
from collections import Counter
data = sys.stdin.read().split()
n = int(data[0])
c = Counter(map(int, data[1:1 + n]))
print(sum(1 for v in c.values() if v == 1))
