import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    a = [0] + list(map(int, data[2:2 + n]))
    tree = a[:]
    for i in range(1, n + 1):
        j = i + (i & -i)
        if j <= n:
            tree[j] += tree[i]
    out = []
    pos = 2 + n
    for _ in range(q):
        op, x, y = data[pos], int(data[pos + 1]), int(data[pos + 2]); pos += 3
        if op == b"1":
            delta = y - a[x]
            a[x] = y
            while x <= n:
                tree[x] += delta
                x += x & -x
        else:
            s = 0
            while y > 0:
                s += tree[y]
                y -= y & -y
            x -= 1
            while x > 0:
                s -= tree[x]
                x -= x & -x
            out.append(s)
    sys.stdout.write("\n".join(map(str, out)) + ("\n" if out else ""))


main()
