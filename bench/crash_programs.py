"""Crashing programs in the six languages, with what the interviewer must name: the
exception (or signal) and the candidate's own line. ``CRASHES`` is the test suite's one per
language (tests/judge/test_crash_words.py); ``viva bench coding`` runs those and
``MORE_CRASHES``. Each crashes on the first sample of a two-number problem."""

from __future__ import annotations

from agents.code_evidence import MAX_CODE, clip

# (code, what must be named, line, the line's text) — each crashes on the first sample.
CRASHES: dict[str, tuple[str, str, int, str]] = {
    "python": ("import sys\n\ndata = sys.stdin.read().split()\nprint(1 // 0)\n",
               "a ZeroDivisionError", 4, "print(1 // 0)"),
    "java": ("import java.util.*;\npublic class Main {\n  public static void main(String[] a) {\n"
             "    int[] x = new int[3];\n    Scanner s = new Scanner(System.in);\n"
             "    int n = s.nextInt();\n    System.out.println(x[n + 5]);\n  }\n}\n",
             "an ArrayIndexOutOfBoundsException", 7, "System.out.println(x[n + 5]);"),
    "javascript": ("const data = require('fs').readFileSync(0, 'utf8');\nlet x;\n"
                   "console.log(x.length);\n", "a TypeError", 3, "console.log(x.length);"),
    "go": ("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tvar n int\n\tfmt.Scan(&n)\n"
           "\tvar p *[]int\n\tfmt.Println((*p)[n])\n}\n",
           "a panic, invalid memory address or nil pointer dereference", 9,
           "fmt.Println((*p)[n])"),
    "c": ("#include <stdio.h>\nint main(void) {\n  int *p = 0;\n  int n;\n"
          "  scanf(\"%d\", &n);\n  p[n] = 3;\n  printf(\"%d\\n\", n);\n  return 0;\n}\n",
          "a segmentation fault", 6, "p[n] = 3;"),
    "cpp": ("#include <bits/stdc++.h>\nusing namespace std;\nint main() {\n  int n; cin >> n;\n"
            "  vector<int> v(3);\n  cout << v.at(n + 5) << endl;\n}\n",
            "an uncaught std::out_of_range", 6, "cout << v.at(n + 5) << endl;"),
}

# More of each kind, for ``viva bench coding``: other exceptions and signals, deeper lines,
# a crash inside a function. Written for the bench (our own code, not collected
# submissions), each crashes on the input "1 2".
MORE_CRASHES: dict[str, list[tuple[str, str, int, str]]] = {
    "python": [
        ("import sys\n\n\ndef pick(xs, i):\n    return xs[i]\n\n\n"
         "a, b = map(int, sys.stdin.read().split())\nprint(pick([a, b], a + b))\n",
         "an IndexError", 5, "return xs[i]"),
        ("import sys\nseen = {}\na, b = map(int, sys.stdin.read().split())\n"
         "print(seen[a])\n", "a KeyError", 4, "print(seen[a])"),
        ("line = input().split()\nn = int(line[0])\nvalue = int('x' * n)\nprint(value)\n",
         "a ValueError", 3, "value = int('x' * n)"),
    ],
    "java": [
        ("import java.util.*;\npublic class Main {\n  public static void main(String[] a) {\n"
         "    Scanner s = new Scanner(System.in);\n    int x = s.nextInt(), y = s.nextInt();\n"
         "    System.out.println(x / (y - 2));\n  }\n}\n",
         "an ArithmeticException", 6, "System.out.println(x / (y - 2));"),
        ("public class Main {\n  public static void main(String[] a) {\n    String s = null;\n"
         "    System.out.println(s.length());\n  }\n}\n",
         "a NullPointerException", 4, "System.out.println(s.length());"),
    ],
    "javascript": [
        ("const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(' ').map(Number);\n"
         "const f = null;\nconsole.log(f(a + b));\n", "a TypeError", 3,
         "console.log(f(a + b));"),
        ("const data = require('fs').readFileSync(0, 'utf8');\nconsole.log(total + data);\n",
         "a ReferenceError", 2, "console.log(total + data);"),
    ],
    "go": [
        ("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tvar a, b int\n"
         "\tfmt.Scan(&a, &b)\n\txs := []int{a, b}\n\tfmt.Println(xs[a+b])\n}\n",
         "a panic, index out of range", 9, "fmt.Println(xs[a+b])"),
        ("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tvar a, b int\n"
         "\tfmt.Scan(&a, &b)\n\tfmt.Println(a / (b - 2))\n}\n",
         "a panic, integer divide by zero", 8, "fmt.Println(a / (b - 2))"),
    ],
    "c": [
        ("#include <stdio.h>\n#include <string.h>\nint main(void) {\n  char *s = NULL;\n"
         "  int a, b;\n  scanf(\"%d %d\", &a, &b);\n  printf(\"%zu\", strlen(s));\n"
         "  return 0;\n}\n", "a segmentation fault", 7, "printf(\"%zu\", strlen(s));"),
    ],
    "cpp": [
        ("#include <bits/stdc++.h>\nusing namespace std;\nint main() {\n  int a, b;\n"
         "  cin >> a >> b;\n  map<int, int> m;\n  cout << m.at(a) << endl;\n}\n",
         "an uncaught std::out_of_range", 7, "cout << m.at(a) << endl;"),
    ],
}

# A runaway recursion in each language: the stack overflows before the memory limit (the
# run's stack limit is half its memory; Java's -Xss32m; Go's stack capped by the judge's
# viva_stack.go), so the candidate hears the error and the recursion's line, not "uses too
# much memory". C, C++ and Go name the frame that found no room: the function's own line or
# its recursive call, whichever the overflow met first (it varies from run to run), so
# each lists the lines that are right.
Site = tuple[int, str]
RECURSIONS: dict[str, tuple[str, str, tuple[Site, ...]]] = {
    "python": ("import sys\n\n\ndef depth(n):\n    return depth(n + 1) + 1\n\n\n"
               "a, b = map(int, sys.stdin.read().split())\nprint(depth(a))\n",
               "a RecursionError", ((5, "return depth(n + 1) + 1"),)),
    "java": ("import java.util.*;\npublic class Main {\n  static int depth(int n) {\n"
             "    return depth(n + 1) + 1;\n  }\n  public static void main(String[] a) {\n"
             "    Scanner s = new Scanner(System.in);\n"
             "    System.out.println(depth(s.nextInt()));\n  }\n}\n",
             "a StackOverflowError", ((4, "return depth(n + 1) + 1;"),)),
    "javascript": ("const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(' ')"
                   ".map(Number);\nfunction depth(n) {\n  return depth(n + 1) + 1;\n}\n"
                   "console.log(depth(a));\n", "a RangeError",
                   ((3, "return depth(n + 1) + 1;"),)),
    "go": ("package main\n\nimport \"fmt\"\n\nfunc depth(n int) int {\n"
           "\treturn depth(n+1) + 1\n}\n\nfunc main() {\n\tvar a, b int\n"
           "\tfmt.Scan(&a, &b)\n\tfmt.Println(depth(a))\n}\n",
           "a panic, stack overflow",
           ((5, "func depth(n int) int {"), (6, "return depth(n+1) + 1"))),
    # The pad keeps GCC from turning the recursion into a loop (it would then time out).
    "c": ("#include <stdio.h>\nint depth(int n) {\n  volatile int pad[8];\n  pad[n & 7] = n;\n"
          "  return depth(n + 1) + pad[(n + 3) & 7];\n}\nint main(void) {\n  int a, b;\n"
          "  scanf(\"%d %d\", &a, &b);\n  printf(\"%d\\n\", depth(a));\n  return 0;\n}\n",
          "a stack overflow",
          ((2, "int depth(int n) {"), (5, "return depth(n + 1) + pad[(n + 3) & 7];"))),
    "cpp": ("#include <bits/stdc++.h>\nusing namespace std;\nint depth(int n) {\n"
            "  volatile int pad[8];\n  pad[n & 7] = n;\n"
            "  return depth(n + 1) + pad[(n + 3) & 7];\n}\nint main() {\n  int a, b;\n"
            "  cin >> a >> b;\n  cout << depth(a) << endl;\n}\n",
            "a stack overflow",
            ((3, "int depth(int n) {"), (6, "return depth(n + 1) + pad[(n + 3) & 7];"))),
}


def parse_crash(label: str) -> tuple[str, tuple[int, ...]] | None:
    """A data set's crash label, ``<what must be named>@<line>[,<line>]`` ("a
    RecursionError@12"), as (what must be named, the right lines); None when it does not
    parse."""
    named, _, lines = label.rpartition("@")
    if not named or not lines:
        return None
    try:
        numbers = tuple(int(x) for x in lines.split(","))
    except ValueError:
        return None
    return (named, numbers) if numbers and min(numbers) >= 1 else None


def sites_in(code: str, lines: tuple[int, ...]) -> tuple[Site, ...]:
    """The labelled lines of a program, with their text (``names_crash`` cuts it as the
    interviewer's quote is cut)."""
    text = code.splitlines()
    return tuple((n, text[n - 1].strip()) for n in lines if n <= len(text))


def names_crash(text: str, exception: str, sites: tuple[Site, ...]) -> bool:
    """Whether the interviewer's words name the exception and one of the right lines, its
    text quoted as the interviewer quotes it (cut to ``MAX_CODE`` characters)."""
    return f"with {exception}" in text and any(
        f" on line {line}, `{clip(source, MAX_CODE)}`." in text for line, source in sites)


def all_crashes() -> list[tuple[str, str, str, tuple[Site, ...]]]:
    """Every crash program: (language, code, what must be named, the lines that are right)."""
    cases = [(lang, code, named, ((line, source),))
             for lang, (code, named, line, source) in CRASHES.items()]
    cases += [(lang, code, named, ((line, source),))
              for lang, more in MORE_CRASHES.items() for code, named, line, source in more]
    return cases + [(lang, code, named, sites)
                    for lang, (code, named, sites) in RECURSIONS.items()]
