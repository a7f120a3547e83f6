import sys
data = sys.stdin.read().split()
n, s = int(data[0]), int(data[1])
coins = sorted(map(int, data[2:2 + n]))
def count(i, left):
    if left == 0:
        return 1
    if i < 0:
        return 0
    total = 0
    while left >= 0:
        total += count(i - 1, left)
        left -= coins[i]
    return total
print(count(n - 1, s) % 1000000007)
