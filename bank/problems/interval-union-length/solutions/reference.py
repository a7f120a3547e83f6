import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
it = iter(map(int, data[1:1 + 2 * n]))
spans = sorted(zip(it, it))
total = 0
cur_l, cur_r = spans[0]
for l, r in spans[1:]:
    if l > cur_r:
        total += cur_r - cur_l
        cur_l, cur_r = l, r
    elif r > cur_r:
        cur_r = r
total += cur_r - cur_l
print(total)
