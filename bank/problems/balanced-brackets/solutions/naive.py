import sys
lines = sys.stdin.read().split()
t = int(lines[0])
for s in lines[1:1 + t]:
    while True:
        for p in ("()", "[]", "{}"):
            i = s.find(p)
            if i >= 0:
                s = s[:i] + s[i + 2:]
                break
        else:
            break
    print("YES" if not s else "NO")
