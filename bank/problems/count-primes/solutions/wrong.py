n = int(input())
s = [True] * (n + 1)
for p in range(2, int(n ** 0.5) + 1):
    if s[p]:
        for q in range(p * p, n + 1, p):
            s[q] = False
print(sum(s[1:]))
