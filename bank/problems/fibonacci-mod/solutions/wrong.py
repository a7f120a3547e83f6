import sys
MOD = 1000000007
def mul(x, y):
    return [[(x[0][0]*y[0][0]+x[0][1]*y[1][0]) % MOD, (x[0][0]*y[0][1]+x[0][1]*y[1][1]) % MOD],
            [(x[1][0]*y[0][0]+x[1][1]*y[1][0]) % MOD, (x[1][0]*y[0][1]+x[1][1]*y[1][1]) % MOD]]
data = sys.stdin.read().split()
for x in data[1:1 + int(data[0])]:
    n = int(x)
    r, b = [[1, 0], [0, 1]], [[1, 1], [1, 0]]
    while n:
        if n & 1:
            r = mul(r, b)
        b = mul(b, b)
        n >>= 1
    print(r[0][0])
