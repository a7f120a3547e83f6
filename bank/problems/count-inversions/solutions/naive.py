import sys
data = sys.stdin.read().split()
n = int(data[0])
a = list(map(int, data[1:1 + n]))
c = 0
for i in range(n):
    for j in range(i + 1, n):
        if a[i] > a[j]:
            c += 1
print(c)
