import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
candidate, votes = None, 0
for x in map(int, data[1:1 + n]):
    if votes == 0:
        candidate = x
    votes += 1 if x == candidate else -1
print(candidate)
