import sys
data = sys.stdin.read().split()
n, m = int(data[0]), int(data[1])
adj = [[] for _ in range(n + 1)]
for i in range(m):
    u, v, w = int(data[2 + 3 * i]), int(data[3 + 3 * i]), int(data[4 + 3 * i])
    adj[u].append((v, w))
INF = float("inf")
dist = [INF] * (n + 1)
dist[1] = 0
done = [False] * (n + 1)
for _ in range(n):
    u, best = -1, INF
    for v in range(1, n + 1):
        if not done[v] and dist[v] < best:
            u, best = v, dist[v]
    if u == -1:
        break
    done[u] = True
    for v, w in adj[u]:
        if best + w < dist[v]:
            dist[v] = best + w
print(" ".join(str(d) if d != INF else "-1" for d in dist[1:]))
