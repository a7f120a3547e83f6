import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    table = [list(map(int, data[2:2 + n]))]
    j = 1
    while (1 << j) <= n:
        prev, half = table[-1], 1 << (j - 1)
        table.append(list(map(min, prev[:len(prev) - half], prev[half:])))
        j += 1
    out = []
    pos = 2 + n
    for _ in range(q):
        l, r = int(data[pos]) - 1, int(data[pos + 1]); pos += 2
        k = (r - l).bit_length() - 1
        row = table[k]
        a, b = row[l], row[r - (1 << k)]
        out.append(a if a < b else b)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
