import sys
from collections import defaultdict


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    seen = defaultdict(int)
    pairs = 0
    for x in map(int, data[2:2 + n]):
        pairs += seen[k - x]
        seen[x] += 1
    print(pairs)


main()
