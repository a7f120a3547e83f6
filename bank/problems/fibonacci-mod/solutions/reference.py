import sys
MOD = 1000000007


def fib(n):
    # fast doubling: returns (F(n), F(n+1))
    a, b = 0, 1
    for bit in bin(n)[2:]:
        c = a * ((2 * b - a) % MOD) % MOD
        d = (a * a + b * b) % MOD
        a, b = (d, (c + d) % MOD) if bit == "1" else (c, d)
    return a


data = sys.stdin.read().split()
t = int(data[0])
print("\n".join(str(fib(int(x))) for x in data[1:1 + t]))
