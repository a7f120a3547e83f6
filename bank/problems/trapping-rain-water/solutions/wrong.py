import sys
data = sys.stdin.read().split()
n = int(data[0])
h = list(map(int, data[1:1 + n]))
top = max(h)
print(sum(top - x for x in h[1:-1]) if n > 2 else 0)
