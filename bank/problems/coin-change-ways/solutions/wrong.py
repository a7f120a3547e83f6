import sys
MOD = 1000000007
data = sys.stdin.read().split()
n, s = int(data[0]), int(data[1])
coins = list(map(int, data[2:2 + n]))
w = [0] * (s + 1)
w[0] = 1
for v in range(1, s + 1):
    for c in coins:
        if c <= v:
            w[v] = (w[v] + w[v - c]) % MOD
print(w[s])
