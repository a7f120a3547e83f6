import sys, heapq
data = sys.stdin.read().split()
n, m = int(data[0]), int(data[1])
adj = [[] for _ in range(n + 1)]
for i in range(m):
    u, v, w = int(data[2 + 3 * i]), int(data[3 + 3 * i]), int(data[4 + 3 * i])
    adj[u].append((v, w)); adj[v].append((u, w))
dist = [-1] * (n + 1)
heap = [(0, 1)]
while heap:
    d, u = heapq.heappop(heap)
    if dist[u] != -1:
        continue
    dist[u] = d
    for v, w in adj[u]:
        if dist[v] == -1:
            heapq.heappush(heap, (d + w, v))
print(" ".join(map(str, dist[1:])))
