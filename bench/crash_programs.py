"""Crashing programs in the six languages, with what the interviewer must name: the
exception (or signal) and the candidate's own line. ``CRASHES`` is the test suite's one per
language (tests/judge/test_crash_words.py); ``viva bench coding`` runs those and
``MORE_CRASHES``. Each crashes on the first sample of a two-number problem."""

from __future__ import annotations

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
