import sys
lines = sys.stdin.read().split()
t = int(lines[0])
for s in lines[1:1 + t]:
    ok = s.count("(") == s.count(")") and s.count("[") == s.count("]") and s.count("{") == s.count("}")
    print("YES" if ok else "NO")
