import sys
data = sys.stdin.read().split()
n = int(data[0])
a = list(map(int, data[1:1 + n]))
count = 0
for i in range(n):
    seen = False
    for j in range(i):
        if a[j] == a[i]:
            seen = True
            break
    if not seen:
        count += 1
print(count)
