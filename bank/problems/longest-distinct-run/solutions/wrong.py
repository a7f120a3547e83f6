import sys
data = sys.stdin.read().split()
n = int(data[0])
seen = set()
best = cur = 0
for x in data[1:1 + n]:
    if x in seen:
        seen = {x}
        cur = 1
    else:
        seen.add(x)
        cur += 1
    best = max(best, cur)
print(best)
