import sys


def balanced(s):
    match = {")": "(", "]": "[", "}": "{"}
    stack = []
    for ch in s:
        if ch in "([{":
            stack.append(ch)
        elif not stack or stack.pop() != match[ch]:
            return False
    return not stack


def main():
    lines = sys.stdin.read().split()
    t = int(lines[0])
    print("\n".join("YES" if balanced(s) else "NO" for s in lines[1:1 + t]))


main()
