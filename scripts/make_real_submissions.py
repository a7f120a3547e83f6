"""Re-create tests/data/real_submissions/: published solutions of bank problems, with their
licence texts (the labels and sources are in git; the code is not).

Reproducible recipe (see tests/data/real_submissions/SOURCES.md for where every file comes
from):

    # bare mirrors laid out as ROOT/<owner>+<name>/repo (as the fetch tool makes them):
    .venv/bin/python scripts/make_real_submissions.py --mirrors ROOT

Sources, each at a pinned commit:

* CSES solutions (``CSES``: nine repositories under MIT or Apache-2.0): programs that read the
  CSES task's input, whose format is the bank problem's, copied byte for byte.
* TheAlgorithms (``ALGORITHMS``: TheAlgorithms/Go, MIT; TheAlgorithms/C and
  TheAlgorithms/JavaScript, GPL-3.0): library functions, not programs. The file keeps the
  repository's bytes and line numbers, with one-line edits (``Program.edits``) that make it a
  program: a Go file's ``package <name>`` line becomes ``package main`` with the imports its
  driver needs (``GO_MAIN``), a JavaScript ``export`` is commented out or dropped from its
  line, and a C file's own ``main`` (a self-test) is renamed ``main_original`` on its line.
  Then a driver (``Program.driver``), our code, is appended: its first line says it is
  appended by Viva and is not TheAlgorithms code; it reads the bank problem's input from
  stdin, calls the function and prints the answer in the bank's output format. The
  algorithm is theirs, the input and output ours.

Each repository's licence text goes to ``LICENSES/<owner>__<name>.txt``. Every re-created
program's sha256 is checked against SOURCES.md's table; ``--table`` prints that table's rows
instead of checking (for writing SOURCES.md when the set changes).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from real_programs import (  # noqa: E402
    Edit,
    Repo,
    digest_faults,
    git_show,
    go_main,
    made_program,
    sha256,
    write_licences,
    write_program,
)

from bench.real_submissions import read_sources  # noqa: E402


def _cses(name: str, commit: str, author: str, licence: str = "MIT") -> Repo:
    return Repo(name, commit, licence, "LICENSE", author)


JAKOVJJ = _cses("jakovjj/cses-solutions", "770230044c9bd6f8f58af4d05308544b8892ba57", "jakovjj")
NTANTHEDEV = _cses("ntanthedev/CSES-Problems-set", "29875aaee6d98c112c97a29536bc29cb7fe6ce41",
                   "ntanthedev")
DECSP = _cses("DecSP/cses-downloader", "31ba1b69bf12ca372992a1f90e5859bc4b77202d", "DecSP")
AMBAK = _cses("ambak/CSES-solutions", "f299496e75e4742750c7bcd4c3c847883bd65d3c", "ambak")
BIZANGEL = _cses("Bizangel/CSESProblemSet_Zangel", "ab4b993aa6512db1296dfe87d713986a153c52f7",
                 "Bizangel")
CHARLIE219 = _cses("charlie219/CSES-Solutions", "e082380cbb3ad74eaa9a55f71a2f9df904477ef2",
                   "charlie219")
DESTINATIONUNKNOWN = _cses("destinationunknown/CSES", "2ada6d94545b78ca327d8ea1af5bf715af812868",
                           "destinationunknown")
ALIKJOKE = _cses("AlikJoke/CSES", "8ba091cbb6ff78378e3e034b91e29118c55e355d", "AlikJoke",
                 "Apache-2.0")
VIDEOGAMESROCKP = _cses("videogamesrockp/CSES-Solutions",
                        "60a3d5209e83ba09b50101cd7c258e0cfd4852a1", "videogamesrockp (Aster Deng)")
CSES = (JAKOVJJ, NTANTHEDEV, DECSP, AMBAK, BIZANGEL, CHARLIE219, DESTINATIONUNKNOWN, ALIKJOKE,
        VIDEOGAMESROCKP)

# TheAlgorithms: every file at the repository's commit (the newest in the mirror).
_ALGORITHMS = "TheAlgorithms contributors (the path's git log names each)"
ALGO_GO = Repo("TheAlgorithms/Go", "5ba447ec5ff3d1213de65b92e726ee74c5d5cc19", "MIT", "LICENSE",
               _ALGORITHMS)
ALGO_C = Repo("TheAlgorithms/C", "e5dad3fa8def3726ec850ca66a7f51521f8ad393", "GPL-3.0",
              "LICENSE", _ALGORITHMS)
ALGO_JS = Repo("TheAlgorithms/JavaScript", "08d8c6b6749c06a36fab705a8cf16e9a04d46a8e",
               "GPL-3.0", "LICENSE", _ALGORITHMS)
ALGORITHMS = (ALGO_GO, ALGO_C, ALGO_JS)
REPOS = (*CSES, *ALGORITHMS)


@dataclass(frozen=True)
class Program:
    file: str  # in the set: <problem>/<language>/<name>.<ext>
    repo: Repo
    path: str  # inside the repository, at repo.commit
    edits: tuple[Edit, ...] = ()  # lines replaced before the driver is appended
    driver: str = ""  # appended after the repository's bytes (ours)

    @property
    def author(self) -> str:
        return self.repo.author


# A Go library file as a program: its drivers read with bufio (200,000 numbers through
# fmt.Scan alone are too slow).
GO_MAIN = go_main("bufio", "fmt", "os")
_SAYS = "driver appended by Viva, not TheAlgorithms code: reads the bank problem's input"


def _go(function: str, body: str) -> str:
    return (f"\n// {_SAYS}, calls {function} and prints the answer\n"
            "func main() {\n\tin := bufio.NewReader(os.Stdin)\n" + body + "}\n")


# Reads "n, then n integers" into a []int.
_GO_INTS = ("\tvar n int\n\tfmt.Fscan(in, &n)\n\ta := make([]int, n)\n"
            "\tfor i := range a {\n\t\tfmt.Fscan(in, &a[i])\n\t}\n")


def _js(function: str, body: str) -> str:
    # In a block, so that the driver's names cannot meet the file's.
    return (f"\n// {_SAYS}, calls {function} and prints the answer\n{{\n"
            "  const tokens = require('fs').readFileSync(0, 'utf8').split(/\\s+/)"
            ".filter(Boolean)\n" + body + "}\n")


# Reads "n, then n integers" into an array of numbers.
_JS_INTS = ("  const n = Number(tokens[0])\n"
            "  const array = tokens.slice(1, n + 1).map(Number)\n")


def _c(function: str, body: str, arrays: str = "") -> str:
    return (f"\n/* {_SAYS}, calls {function} and prints the answer */\n"
            "#include <stdio.h>\n" + arrays + "\nint main(void)\n{\n" + body + "}\n")


# Reads "n, then n integers" into the static int a[200000] (the bank's largest n).
_C_INTS = ("    int n;\n    if (scanf(\"%d\", &n) != 1)\n        return 1;\n"
           "    for (int i = 0; i < n; i++)\n        scanf(\"%d\", &a[i]);\n")
_C_ARRAY = "\nstatic int a[200000];\n"


def _package(line: int, name: str) -> tuple[Edit, ...]:
    return (Edit(line, f"package {name}", GO_MAIN),)


def _unexport(line: int, text: str) -> Edit:
    """A JavaScript ``export { ... }`` line commented out, or ``export`` dropped from the
    declaration on its line."""
    if text.startswith("export {"):
        return Edit(line, text, f"// {text}")
    return Edit(line, text, text.removeprefix("export "))


def _rename_main(line: int, text: str) -> tuple[Edit, ...]:
    """A C file's own ``main`` (its self-test) renamed, so that the driver's is the program's."""
    return (Edit(line, text, text.replace("main(", "main_original(", 1)),)


ALGORITHM_PROGRAMS: tuple[Program, ...] = (
    # Go
    Program("trapping-rain-water/go/thealgorithms_traprainwater.go", ALGO_GO,
            "dynamic/traprainwater.go", _package(11, "dynamic"),
            _go("TrapRainWater", _GO_INTS + "\tfmt.Println(TrapRainWater(a))\n")),
    Program("longest-increasing-subsequence/go/thealgorithms_lisgreedy.go", ALGO_GO,
            "dynamic/longestincreasingsubsequencegreedy.go", _package(1, "dynamic"),
            _go("LongestIncreasingSubsequenceGreedy",
                _GO_INTS + "\tfmt.Println(LongestIncreasingSubsequenceGreedy(a))\n")),
    Program("edit-distance/go/thealgorithms_levenshtein.go", ALGO_GO,
            "strings/levenshtein/levenshteindistance.go", _package(7, "levenshtein"),
            _go("Distance", "\tvar first, second string\n\tfmt.Fscan(in, &first, &second)\n"
                            "\t// every operation costs 1: insertion, substitution, deletion\n"
                            "\tfmt.Println(Distance(first, second, 1, 1, 1))\n")),
    Program("knapsack-01/go/thealgorithms_knapsack.go", ALGO_GO, "dynamic/knapsack.go",
            _package(1, "dynamic"),
            _go("Knapsack", "\tvar n, maxWeight int\n\tfmt.Fscan(in, &n, &maxWeight)\n"
                            "\tweights, values := make([]int, n), make([]int, n)\n"
                            "\tfor i := 0; i < n; i++ {\n"
                            "\t\tfmt.Fscan(in, &weights[i], &values[i])\n\t}\n"
                            "\tfmt.Println(Knapsack(maxWeight, weights, values))\n")),
    Program("balanced-brackets/go/thealgorithms_nestedbrackets.go", ALGO_GO,
            "other/nested/nestedbrackets.go", _package(3, "nested"),
            _go("IsBalanced", "\tout := bufio.NewWriter(os.Stdout)\n\tdefer out.Flush()\n"
                              "\tvar t int\n\tfmt.Fscan(in, &t)\n\tfor ; t > 0; t-- {\n"
                              "\t\tvar s string\n\t\tfmt.Fscan(in, &s)\n"
                              "\t\tif IsBalanced(s) {\n\t\t\tfmt.Fprintln(out, \"YES\")\n"
                              "\t\t} else {\n\t\t\tfmt.Fprintln(out, \"NO\")\n\t\t}\n\t}\n")),
    Program("point-update-range-sum/go/thealgorithms_fenwicktree.go", ALGO_GO,
            "structure/fenwicktree/fenwicktree.go", _package(8, "fenwicktree"),
            _go("NewFenwickTree, Add and RangeSum",
                "\tout := bufio.NewWriter(os.Stdout)\n\tdefer out.Flush()\n"
                "\tvar n, q int\n\tfmt.Fscan(in, &n, &q)\n\ta := make([]int, n)\n"
                "\tfor i := range a {\n\t\tfmt.Fscan(in, &a[i])\n\t}\n"
                "\ttree := NewFenwickTree(a)\n\tfor ; q > 0; q-- {\n"
                "\t\tvar op, x, y int\n\t\tfmt.Fscan(in, &op, &x, &y)\n\t\tif op == 1 {\n"
                "\t\t\ttree.Add(x, y-a[x-1]) // a set is an add of the difference\n"
                "\t\t\ta[x-1] = y\n\t\t} else {\n"
                "\t\t\tfmt.Fprintln(out, tree.RangeSum(x, y))\n\t\t}\n\t}\n")),
    Program("count-primes/go/thealgorithms_sieve2.go", ALGO_GO, "math/prime/sieve2.go",
            _package(7, "prime"),
            _go("SieveEratosthenes", "\tvar n int\n\tfmt.Fscan(in, &n)\n"
                                     "\tfmt.Println(len(SieveEratosthenes(n)))\n")),
    Program("coin-change-ways/go/thealgorithms_coinchange.go", ALGO_GO,
            "dynamic/coinchange.go", _package(7, "dynamic"),
            _go("CoinChange", "\tvar n int\n\tvar s int32\n\tfmt.Fscan(in, &n, &s)\n"
                              "\tcoins := make([]int32, n)\n\tfor i := range coins {\n"
                              "\t\tfmt.Fscan(in, &coins[i])\n\t}\n"
                              "\tfmt.Println(CoinChange(coins, s))\n")),
    # JavaScript
    Program("max-subarray-sum/javascript/thealgorithms_kadanealgo.js", ALGO_JS,
            "Dynamic-Programming/KadaneAlgo.js",
            (_unexport(12, "export function kadaneAlgo(array) {"),),
            _js("kadaneAlgo", _JS_INTS + "  console.log(kadaneAlgo(array))\n")),
    Program("edit-distance/javascript/thealgorithms_editdistance.js", ALGO_JS,
            "Dynamic-Programming/EditDistance.js",
            (_unexport(54, "export { minimumEditDistance }"),),
            _js("minimumEditDistance",
                "  console.log(minimumEditDistance(tokens[0], tokens[1]))\n")),
    Program("longest-increasing-subsequence/javascript/thealgorithms_lis.js", ALGO_JS,
            "Dynamic-Programming/LongestIncreasingSubsequence.js",
            (_unexport(30, "export { longestIncreasingSubsequence }"),),
            _js("longestIncreasingSubsequence",
                _JS_INTS + "  console.log(longestIncreasingSubsequence(array))\n")),
    Program("trapping-rain-water/javascript/thealgorithms_trappingrainwater.js", ALGO_JS,
            "Dynamic-Programming/TrappingRainWater.js",
            (_unexport(38, "export const trap = (heights) => {"),),
            _js("trap", _JS_INTS + "  console.log(trap(array))\n")),
    Program("knapsack-01/javascript/thealgorithms_zerooneknapsack.js", ALGO_JS,
            "Dynamic-Programming/ZeroOneKnapsack.js",
            (_unexport(83, "export { zeroOneKnapsack, example }"),),
            _js("zeroOneKnapsack",
                "  const n = Number(tokens[0])\n  const cap = Number(tokens[1])\n"
                "  const arr = []\n  for (let i = 0; i < n; i++) {\n"
                "    arr.push([Number(tokens[2 + 2 * i]), Number(tokens[3 + 2 * i])])\n  }\n"
                "  // the cache as the file's example() builds it: (n + 1) rows of cap + 1 -1s\n"
                "  const cache = []\n  for (let i = 0; i <= n; i++) {\n"
                "    cache.push(new Array(cap + 1).fill(-1))\n  }\n"
                "  console.log(zeroOneKnapsack(arr, n, cap, cache))\n")),
    Program("point-update-range-sum/javascript/thealgorithms_segmenttree.js", ALGO_JS,
            "Data-Structures/Tree/SegmentTree.js", (_unexport(97, "export { SegmentTree }"),),
            _js("SegmentTree's update and query",
                "  let p = 0\n  const n = Number(tokens[p++])\n  const q = Number(tokens[p++])\n"
                "  const tree = new SegmentTree(tokens.slice(p, p + n).map(Number))\n"
                "  p += n\n  const out = []\n  for (let k = 0; k < q; k++) {\n"
                "    const op = tokens[p++]\n    const x = Number(tokens[p++])\n"
                "    const y = Number(tokens[p++])\n"
                "    if (op === '1') {\n      tree.update(x - 1, y)\n    } else {\n"
                "      out.push(tree.query(x - 1, y - 1))\n    }\n  }\n"
                "  console.log(out.join('\\n'))\n")),
    Program("count-primes/javascript/thealgorithms_sieveoferatosthenes.js", ALGO_JS,
            "Dynamic-Programming/SieveOfEratosthenes.js",
            (_unexport(33, "export { sieveOfEratosthenes }"),),
            _js("sieveOfEratosthenes",
                "  console.log(sieveOfEratosthenes(Number(tokens[0])).length)\n")),
    Program("coin-change-ways/javascript/thealgorithms_coinchange.js", ALGO_JS,
            "Dynamic-Programming/CoinChange.js",
            (_unexport(5, "export const change = (coins, amount) => {"),
             _unexport(22, "export const coinChangeMin = (coins, amount) => {")),
            _js("change", "  const n = Number(tokens[0])\n  const s = Number(tokens[1])\n"
                          "  console.log(change(tokens.slice(2, 2 + n).map(Number), s))\n")),
    # C
    Program("range-minimum-query/c/thealgorithms_segment_tree.c", ALGO_C,
            "data_structures/binary_trees/segment_tree.c", _rename_main(231, "int main()"),
            _c("segment_tree_init, segment_tree_build and segment_tree_query with minimum",
               "    int n, q;\n    if (scanf(\"%d %d\", &n, &q) != 2)\n        return 1;\n"
               "    int32_t *arr = malloc(sizeof(int32_t) * n);\n"
               "    for (int i = 0; i < n; i++)\n        scanf(\"%\" SCNd32, &arr[i]);\n"
               "    int32_t identity = __INT32_MAX__; /* as the file's test() sets it */\n"
               "    segment_tree *tree =\n"
               "        segment_tree_init(arr, sizeof(*arr), n, &identity, minimum);\n"
               "    segment_tree_build(tree);\n    while (q-- > 0)\n    {\n"
               "        int l, r;\n        int32_t result;\n"
               "        scanf(\"%d %d\", &l, &r);\n"
               "        segment_tree_query(tree, l - 1, r - 1, &result);\n"
               "        printf(\"%\" PRId32 \"\\n\", result);\n    }\n"
               "    segment_tree_dispose(tree);\n    return 0;\n")),
    Program("stock-profit/c/thealgorithms_leetcode121.c", ALGO_C, "leetcode/src/121.c",
            driver=_c("maxProfit", _C_INTS + "    printf(\"%d\\n\", maxProfit(a, n));\n"
                                            "    return 0;\n", _C_ARRAY)),
    Program("majority-element/c/thealgorithms_leetcode169.c", ALGO_C, "leetcode/src/169.c",
            driver=_c("majorityElement",
                      _C_INTS + "    printf(\"%d\\n\", majorityElement(a, n));\n"
                                "    return 0;\n", _C_ARRAY)),
    Program("max-subarray-sum/c/thealgorithms_leetcode53.c", ALGO_C, "leetcode/src/53.c",
            driver=_c("maxSubArray", _C_INTS + "    printf(\"%d\\n\", maxSubArray(a, n));\n"
                                              "    return 0;\n", _C_ARRAY)),
    Program("trapping-rain-water/c/thealgorithms_leetcode42.c", ALGO_C, "leetcode/src/42.c",
            driver=_c("trap", _C_INTS + "    printf(\"%d\\n\", trap(a, n));\n"
                                       "    return 0;\n", _C_ARRAY)),
    Program("balanced-brackets/c/thealgorithms_parenthesis.c", ALGO_C,
            "data_structures/stack/parenthesis.c", _rename_main(98, "int main(void)"),
            _c("isBalanced and destroyStack",
               "    /* the file's own main, without its prompts and with a buffer for the\n"
               "       bank's 200000 characters (its s[SIZE] holds 100) */\n"
               "    static char s[200001];\n    int t;\n"
               "    if (scanf(\"%d\", &t) != 1)\n        return 1;\n"
               "    for (int a0 = 0; a0 < t; a0++)\n    {\n"
               "        scanf(\"%200000s\", s);\n"
               "        printf(isBalanced(s) ? \"YES\\n\" : \"NO\\n\");\n"
               "        destroyStack();\n    }\n    return 0;\n")),
    Program("count-primes/c/thealgorithms_prime_sieve.c", ALGO_C, "math/prime_sieve.c",
            _rename_main(73, "int main(int argc, const char *argv[])"),
            _c("prime and count",
               "    int n;\n    if (scanf(\"%d\", &n) != 1)\n        return 1;\n"
               "    /* prime() fills p[0..MAX_SIZE]; room for count() to read p[0..n] */\n"
               "    size_t size = (size_t)n > MAX_SIZE ? (size_t)n : MAX_SIZE;\n"
               "    int *arr = calloc(size + 1, sizeof(int));\n"
               "    prime(arr);\n    printf(\"%d\\n\", count(arr, n));\n    return 0;\n")),
)


def _copied(file: str, repo: Repo, path: str) -> Program:
    return Program(file, repo, path)


CSES_PROGRAMS: tuple[Program, ...] = tuple(_copied(*row) for row in (
    ("distinct-values/cpp/jakovjj.cpp", JAKOVJJ, "Sorting and Searching/Distinct Numbers.cpp"),
    ("max-subarray-sum/cpp/jakovjj.cpp", JAKOVJJ,
     "Sorting and Searching/Maximum Subarray Sum.cpp"),
    ("range-sum-queries/cpp/jakovjj.cpp", JAKOVJJ, "Range Queries/Static Range Sum Queries.cpp"),
    ("point-update-range-sum/cpp/jakovjj.cpp", JAKOVJJ,
     "Range Queries/Dynamic Range Sum Queries.cpp"),
    ("range-minimum-query/cpp/jakovjj.cpp", JAKOVJJ,
     "Range Queries/Static Range Minimum Queries.cpp"),
    ("edit-distance/cpp/jakovjj.cpp", JAKOVJJ, "Dynamic Programming/Edit Distance.cpp"),
    ("longest-increasing-subsequence/cpp/jakovjj.cpp", JAKOVJJ,
     "Dynamic Programming/Increasing Subsequence.cpp"),
    ("coin-change-ways/cpp/jakovjj.cpp", JAKOVJJ, "Dynamic Programming/Coin Combinations II.cpp"),
    ("subarray-sum-equals-k/cpp/jakovjj.cpp", JAKOVJJ,
     "Sorting and Searching/Subarray Sums II.cpp"),
    ("longest-distinct-run/cpp/jakovjj.cpp", JAKOVJJ, "Sorting and Searching/Playlist.cpp"),
    ("distinct-values/cpp/ntanthedev.cpp", NTANTHEDEV,
     "Sorting and Searching/1621_Distinct Numbers/solution.cpp"),
    ("max-subarray-sum/cpp/ntanthedev.cpp", NTANTHEDEV,
     "Sorting and Searching/1643_Maximum Subarray Sum/solution.cpp"),
    ("range-sum-queries/cpp/ntanthedev.cpp", NTANTHEDEV,
     "Range Queries/1646_Static Range Sum Queries/solution.cpp"),
    ("point-update-range-sum/cpp/ntanthedev.cpp", NTANTHEDEV,
     "Range Queries/1648_Dynamic Range Sum Queries/solution.cpp"),
    ("range-minimum-query/cpp/ntanthedev.cpp", NTANTHEDEV,
     "Range Queries/1647_Static Range Minimum Queries/solution.cpp"),
    ("edit-distance/cpp/ntanthedev.cpp", NTANTHEDEV,
     "Dynamic Programming/1639_Edit Distance/solution.cpp"),
    ("longest-increasing-subsequence/cpp/ntanthedev.cpp", NTANTHEDEV,
     "Dynamic Programming/1145_Increasing Subsequence/solution.cpp"),
    ("coin-change-ways/cpp/ntanthedev.cpp", NTANTHEDEV,
     "Dynamic Programming/1636_Coin Combinations II/solution.cpp"),
    ("subarray-sum-equals-k/cpp/ntanthedev.cpp", NTANTHEDEV,
     "Sorting and Searching/1661_Subarray Sums II/solution.cpp"),
    ("longest-distinct-run/cpp/ntanthedev.cpp", NTANTHEDEV,
     "Sorting and Searching/1141_Playlist/solution.cpp"),
    ("distinct-values/cpp/decsp.cpp", DECSP, "Sorting and Searching/Distinct Numbers.cpp"),
    ("max-subarray-sum/cpp/decsp.cpp", DECSP, "Sorting and Searching/Maximum Subarray Sum.cpp"),
    ("range-sum-queries/cpp/decsp.cpp", DECSP, "Range Queries/Static Range Sum Queries.cpp"),
    ("point-update-range-sum/cpp/decsp.cpp", DECSP,
     "Range Queries/Dynamic Range Sum Queries.cpp"),
    ("range-minimum-query/cpp/decsp.cpp", DECSP,
     "Range Queries/Static Range Minimum Queries.cpp"),
    ("edit-distance/cpp/decsp.cpp", DECSP, "Dynamic Programming/Edit Distance.cpp"),
    ("longest-increasing-subsequence/cpp/decsp.cpp", DECSP,
     "Dynamic Programming/Increasing Subsequence.cpp"),
    ("longest-increasing-subsequence/cpp/ambak.cpp", AMBAK,
     "Dynamic Programming/Increasing Subsequence.cpp"),
    ("coin-change-ways/cpp/decsp.cpp", DECSP, "Dynamic Programming/Coin Combinations II.cpp"),
    ("subarray-sum-equals-k/cpp/decsp.cpp", DECSP, "Sorting and Searching/Subarray Sums II.cpp"),
    ("longest-distinct-run/cpp/decsp.cpp", DECSP, "Sorting and Searching/Playlist.cpp"),
    ("distinct-values/cpp/bizangel.cpp", BIZANGEL, "Sorting and Searching/Distinct Numbers.cpp"),
    ("max-subarray-sum/cpp/bizangel.cpp", BIZANGEL,
     "Sorting and Searching/Maximum Subarray Sum.cpp"),
    ("coin-change-ways/cpp/bizangel.cpp", BIZANGEL,
     "Dynamic Programming/Coin Combinations II.cpp"),
    ("distinct-values/python/charlie219.py", CHARLIE219,
     "Sorting and Searching/Distinct Numbers.py"),
    ("max-subarray-sum/python/charlie219.py", CHARLIE219,
     "Sorting and Searching/Maximum Subarray Sum.py"),
    ("range-sum-queries/python/charlie219.py", CHARLIE219, "Range Queries/Range Sum Queries I.py"),
    ("point-update-range-sum/python/charlie219.py", CHARLIE219,
     "Range Queries/Range Sum Queries II.py"),
    ("longest-increasing-subsequence/python/charlie219.py", CHARLIE219,
     "Dynamic Programming/Increasing Subsequence.py"),
    ("coin-change-ways/python/charlie219.py", CHARLIE219,
     "Dynamic Programming/Coin Combinations II.py"),
    ("subarray-sum-equals-k/python/charlie219.py", CHARLIE219,
     "Sorting and Searching/Subarray Sums II.py"),
    ("longest-distinct-run/python/charlie219.py", CHARLIE219, "Sorting and Searching/Playlist.py"),
    ("distinct-values/python/destinationunknown.py", DESTINATIONUNKNOWN, "python/1621.py"),
    ("distinct-values/java/alikjoke.java", ALIKJOKE,
     "SortingAndSearching/DistinctNumbers/Main.java"),
    ("max-subarray-sum/java/alikjoke.java", ALIKJOKE,
     "SortingAndSearching/MaximumSubarraySum/Main.java"),
    ("longest-distinct-run/java/alikjoke.java", ALIKJOKE, "SortingAndSearching/Playlist/Main.java"),
    ("subarray-sum-equals-k/java/alikjoke.java", ALIKJOKE,
     "SortingAndSearching/SubarraySumsII/Main.java"),
    ("coin-change-ways/java/alikjoke.java", ALIKJOKE,
     "DynamicProgramming/CoinCombinationsII/Main.java"),
    ("point-update-range-sum/java/alikjoke.java", ALIKJOKE,
     "RangeQueries/DynamicRangeSumQueries/Main.java"),
    ("range-minimum-query/java/alikjoke.java", ALIKJOKE,
     "RangeQueries/StaticRangeMinimumQueries/Main.java"),
    ("distinct-values/java/videogamesrockp.java", VIDEOGAMESROCKP,
     "Sorting and Searching/Distinct Numbers/Main.java"),
))
PROGRAMS = (*CSES_PROGRAMS, *ALGORITHM_PROGRAMS)


def program_bytes(mirrors: Path, program: Program) -> bytes:
    """The program as the set holds it: the repository's bytes (CSES: as they are;
    TheAlgorithms: with the one-line edits and the driver appended)."""
    code = git_show(mirrors, program.repo, program.path)
    return made_program(code, program.edits, program.driver,
                        f"{program.path} at {program.repo.commit}")


def table_rows(mirrors: Path) -> list[str]:
    return [f"| {p.file} | {p.repo.name} @ {p.repo.commit} | {p.path} | "
            f"{p.repo.licence} ({p.repo.licence_file}) | {p.author} | "
            f"{sha256(program_bytes(mirrors, p))} |" for p in PROGRAMS]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True,
                        help="folder of bare mirrors owner+name/repo")
    parser.add_argument("--out", type=Path,
                        default=ROOT / "tests" / "data" / "real_submissions")
    parser.add_argument("--table", action="store_true",
                        help="print SOURCES.md's file rows and stop")
    args = parser.parse_args(argv)
    mirrors: Path = args.mirrors
    out: Path = args.out
    if args.table:
        print("\n".join(table_rows(mirrors)))
        return 0

    expected = {s.file: s.sha256 for s in read_sources(out)}
    # Every folder of the set is re-created here (the .gitignore keeps them all out of git).
    for folder in sorted(out.iterdir()):
        if folder.is_dir() and not folder.name.startswith("."):
            shutil.rmtree(folder)
    write_licences(mirrors, out, REPOS)
    made: dict[str, bytes] = {}
    for p in PROGRAMS:
        made[p.file] = code = program_bytes(mirrors, p)
        write_program(out, p.file, code)
        print(f"{p.file} <- {p.repo.name}@{p.repo.commit[:8]}:{p.path}")
    faults = digest_faults(made, expected, "this script")
    if faults:
        print("\n".join(faults), file=sys.stderr)
        return 1
    print(f"{len(PROGRAMS)} programs and {len(REPOS)} licence texts in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
