import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    ranks = {v: i + 1 for i, v in enumerate(sorted(set(a)))}
    size = len(ranks)
    tree = [0] * (size + 1)
    inversions = 0
    for seen, x in enumerate(a):
        r = ranks[x]
        # elements seen so far that are <= x
        i, le = r, 0
        while i > 0:
            le += tree[i]
            i -= i & -i
        inversions += seen - le
        i = r
        while i <= size:
            tree[i] += 1
            i += i & -i
    print(inversions)


main()
