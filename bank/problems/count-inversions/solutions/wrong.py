import sys
data = sys.stdin.read().split()
n = int(data[0])
a = list(map(int, data[1:1 + n]))
def sort(v):
    if len(v) <= 1:
        return v, 0
    m = len(v) // 2
    l, x = sort(v[:m]); r, y = sort(v[m:])
    out, i, j, c = [], 0, 0, x + y
    while i < len(l) and j < len(r):
        if r[j] <= l[i]:
            c += len(l) - i; out.append(r[j]); j += 1
        else:
            out.append(l[i]); i += 1
    return out + l[i:] + r[j:], c
print(sort(a)[1])
