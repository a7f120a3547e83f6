import sys
n = int(sys.stdin.read().split()[0])
if n < 2:
    print(0)
else:
    sieve = bytearray([1]) * (n + 1)
    sieve[0] = sieve[1] = 0
    p = 2
    while p * p <= n:
        if sieve[p]:
            sieve[p * p::p] = bytes(len(range(p * p, n + 1, p)))
        p += 1
    print(sum(sieve))
