import sys
a, b = sys.stdin.read().split()[:2]
prev = list(range(len(b) + 1))
for i, ca in enumerate(a, 1):
    cur = [i] + [0] * len(b)
    for j, cb in enumerate(b, 1):
        cost = prev[j - 1] + (ca != cb)
        d = prev[j] + 1
        if d < cost:
            cost = d
        ins = cur[j - 1] + 1
        cur[j] = ins if ins < cost else cost
    prev = cur
print(prev[-1])
