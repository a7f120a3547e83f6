import sys
from itertools import accumulate


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    prefix = [0, *accumulate(map(int, data[2:2 + n]))]
    it = iter(map(int, data[2 + n:2 + n + 2 * q]))
    out = [prefix[r] - prefix[l - 1] for l, r in zip(it, it)]
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
