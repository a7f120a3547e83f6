import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
h = list(map(int, data[1:1 + n]))
i, j = 0, n - 1
left = right = water = 0
while i < j:
    if h[i] < h[j]:
        left = max(left, h[i]); water += left - h[i]; i += 1
    else:
        right = max(right, h[j]); water += right - h[j]; j -= 1
print(water)
