import sys
data = sys.stdin.read().split()
n = int(data[0])
a = list(map(int, data[1:1 + n]))
for x in a:
    c = 0
    for y in a:
        if y == x:
            c += 1
    if c * 2 > n:
        print(x)
        break
