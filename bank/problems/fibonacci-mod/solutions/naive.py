import sys
MOD = 1000000007
data = sys.stdin.read().split()
for x in data[1:1 + int(data[0])]:
    n = int(x)
    a, b = 0, 1
    for _ in range(n):
        a, b = b, (a + b) % MOD
    print(a)
