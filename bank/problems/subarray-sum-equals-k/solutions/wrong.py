import sys
data = sys.stdin.read().split()
n, k = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
left = s = total = 0
for right, x in enumerate(a):
    s += x
    while s > k and left <= right:
        s -= a[left]; left += 1
    if s == k and left <= right:
        total += 1
print(total)
