"""Re-create tests/data/real_crashes/: published programs that crash at run time, with the
input that makes each crash (the labels and sources are in git; the code and data are not).

Reproducible recipe (see tests/data/real_crashes/SOURCES.md for where every file comes from):

    # bare mirrors laid out as ROOT/<owner>+<name>/repo (as the fetch tool makes them):
    .venv/bin/python scripts/make_real_crashes.py --mirrors ROOT

Sources, each at a pinned commit:

* IntroClass (ProgramRepair/IntroClass, BSD-3-Clause): student C programs, copied byte for
  byte; the input is one of the assignment's own test files (``tests/*/N.in``), byte for
  byte.
* QuixBugs (jkoppel/QuixBugs, MIT): Python functions with a one-line bug. A function is not a
  program, so the original bytes are followed by a driver (``DRIVERS``: our code, marked as
  such in the file) that reads the arguments from stdin, calls the function and prints what
  it returns; the original lines keep their numbers. The input is the arguments of one line
  of ``json_testcases/<name>.json``; for the graph and linked-list functions, whose tests
  build ``Node`` objects in Python (``python_testcases/test_<name>.py``), it is that test
  case's graph written as JSON (``GRAPH_INPUTS``).
* ConDefects (appmlk/ConDefects, MIT): real AtCoder submissions in Java; the program is the
  faulty version (``Code/<task>/Java/<submission>/faultyVersion.java``), byte for byte.
  ConDefects holds no test cases, so each input is ours (``JAVA_INPUTS``), written in the
  task's input format, on which the faulty version crashes and the correct version
  (``correctVersion.java`` beside it) runs and prints the right answer.
* TheAlgorithms (TheAlgorithms/Go and TheAlgorithms/C-Plus-Plus, MIT; TheAlgorithms/JavaScript,
  GPL-3.0): a file as it was just before the commit that fixed (or removed) its crash, each at
  its own commit (``Program.commit``). The C++ files and two JavaScript files are programs
  with their own ``main``, byte for byte. The others are made programs by one-line edits
  (``Program.edits``, so every line keeps its number): a Go library file's line 1
  ``package <name>`` becomes ``package main; import "fmt"``, a JavaScript ``export`` line
  is commented out; then a driver (``DRIVERS``, our code, marked as such) is appended. The
  inputs are ours (``ALGO_INPUTS``); two are transcriptions of a test case that the fix
  commit added to the repository's tests.

Each repository's licence text goes to ``LICENSES/<owner>__<name>.txt``. Every re-created
program's sha256 is checked against SOURCES.md's table; ``--table`` prints that table's rows
instead of checking (for writing SOURCES.md when the set changes).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

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

INTROCLASS = Repo("ProgramRepair/IntroClass", "897fd9ca72a4cd2fa0884b6d2d9d09a95603cb65",
                  "BSD-3-Clause", "LICENSE", "")
QUIXBUGS = Repo("jkoppel/QuixBugs", "4257f44b0ff1181dedaedee6a447e133219fcebf", "MIT",
                "LICENSE", "Quixey Challenge; QuixBugs (Lin, Koppel, Chen, Solar-Lezama)")
CONDEFECTS = Repo("appmlk/ConDefects", "43f0834a82c5e3bc4516c079fe7765f63b1a15cd", "MIT",
                  "LICENSE", "")
# TheAlgorithms: each program is taken at its own commit (the parent of its fix); the
# repository's commit is the newest of those, for the licence text (the same at all of them).
_ALGORITHMS = "TheAlgorithms contributors (the path's git log names each)"
ALGO_GO = Repo("TheAlgorithms/Go", "20aa5797d73b6939f0f1f5bce1c0a53caca7868d", "MIT", "LICENSE",
               _ALGORITHMS)
ALGO_CPP = Repo("TheAlgorithms/C-Plus-Plus", "edc17ec9e85ad5d2d371990009aa796de21eff06", "MIT",
                "LICENSE", _ALGORITHMS)
ALGO_JS = Repo("TheAlgorithms/JavaScript", "74f296578a3edc0081937e17c9370695848c62b8",
               "GPL-3.0", "LICENSE", _ALGORITHMS)
REPOS = (INTROCLASS, QUIXBUGS, CONDEFECTS, ALGO_GO, ALGO_CPP, ALGO_JS)
EXTENSIONS = {"c": ".c", "python": ".py", "java": ".java", "go": ".go", "cpp": ".cpp",
              "javascript": ".js"}


@dataclass(frozen=True)
class Program:
    name: str  # the file stem in the set: <language>/<name>.<ext>, inputs/<name>.in
    language: str  # a judge language: "c", "python", "java", "go", "cpp" or "javascript"
    repo: Repo
    path: str  # the program inside the repository
    input_path: str  # the test file the input comes from (ConDefects: the correct version)
    case: int = 0  # QuixBugs json_testcases: the line (1-based) whose arguments are taken
    driver: str = ""  # key of DRIVERS appended to the function (after the edits)
    function: str = ""  # the function the driver calls
    commit: str = ""  # the program's commit, when not the repository's
    edits: tuple[Edit, ...] = ()  # lines replaced before the driver is appended

    @property
    def at(self) -> str:
        return self.commit or self.repo.commit

    @property
    def file(self) -> str:
        return f"{self.language}/{self.name}{EXTENSIONS[self.language]}"

    @property
    def input_file(self) -> str:
        return f"inputs/{self.name}.in"

    @property
    def author(self) -> str:
        if self.repo is INTROCLASS:
            # <assignment>/<anonymised student repository id>/<submission>/<assignment>.c
            _, student, submission, _ = self.path.split("/")
            return f"IntroClass student {student[:8]} (anonymised), submission {submission}"
        if self.repo is CONDEFECTS:
            # Code/<task>/Java/<AtCoder submission id>/faultyVersion.java
            _, task, _, submission, _ = self.path.split("/")
            return (f"AtCoder submission {submission} to {task} (its author is not named in "
                    "ConDefects)")
        return self.repo.author


# The driver's first line says whose code it is; ``{function}`` is the function it calls
# (``{{``/``}}``: a brace of the driver's own).
_HEAD = '\n\nif __name__ == "__main__":  # driver appended by Viva, not QuixBugs code\n' \
        "    import json\n    import sys\n\n"
DRIVERS: dict[str, str] = {
    # A json_testcases line's arguments: [arg, ...].
    "args": _HEAD + "    args = json.loads(sys.stdin.read())\n"
                    "    print({function}(*args))\n",
    # A linked list: its values, head first.
    "list": _HEAD + "    class Node:  # the fields {function} reads\n"
                    "        def __init__(self, value, successor=None):\n"
                    "            self.value, self.successor = value, successor\n\n"
                    "    head = None\n"
                    "    for value in reversed(json.loads(sys.stdin.read())):\n"
                    "        head = Node(value, head)\n"
                    "    print({function}(head))\n",
    # A digraph: {"successors": {node: [node, ...]}, "start": node, "goal": node}.
    "graph": _HEAD + "    class Node:  # the fields {function} reads\n"
                     "        def __init__(self, value):\n"
                     "            self.value, self.successors = value, []\n\n"
                     "    spec = json.loads(sys.stdin.read())\n"
                     "    nodes = {{name: Node(name) for name in spec[\"successors\"]}}\n"
                     "    for name, after in spec[\"successors\"].items():\n"
                     "        nodes[name].successors = [nodes[n] for n in after]\n"
                     "    print({function}(nodes[spec[\"start\"]], nodes[spec[\"goal\"]]))\n",
    # Weighted undirected edges [[u, v, weight], ...] as the {(u, v): weight} dict it takes.
    "edges": _HEAD + "    edges = json.loads(sys.stdin.read())\n"
                     "    print({function}({{(u, v): w for u, v, w in edges}}))\n",
    # TheAlgorithms, Go: whitespace-separated integers, the function called on the slice.
    "go ints": "\n// driver appended by Viva, not TheAlgorithms code\n"
               "func main() {{\n"
               "\tvar arr []int\n"
               "\tfor {{\n"
               "\t\tvar x int\n"
               "\t\tif _, err := fmt.Scan(&x); err != nil {{\n"
               "\t\t\tbreak\n"
               "\t\t}}\n"
               "\t\tarr = append(arr, x)\n"
               "\t}}\n"
               "\tfmt.Println({function}(arr))\n"
               "}}\n",
    # Go: the target, then the sorted integers; called as the repository's search_test.go
    # calls binarySearch (the whole slice: 0, len(array)-1).
    "go search": "\n// driver appended by Viva, not TheAlgorithms code\n"
                 "func main() {{\n"
                 "\tvar target int\n"
                 "\tfmt.Scan(&target)\n"
                 "\tvar array []int\n"
                 "\tfor {{\n"
                 "\t\tvar x int\n"
                 "\t\tif _, err := fmt.Scan(&x); err != nil {{\n"
                 "\t\t\tbreak\n"
                 "\t\t}}\n"
                 "\t\tarray = append(array, x)\n"
                 "\t}}\n"
                 "\tfmt.Println({function}(array, target, 0, len(array)-1))\n"
                 "}}\n",
    # JavaScript: the value sought, then the sorted numbers. In a block, and not named
    # ``value``: the program's bug is a free reference to ``value``, which a global of that
    # name would silently satisfy.
    "js search": "\n// driver appended by Viva, not TheAlgorithms code\n"
                 "{{\n"
                 "  const numbers = require('fs').readFileSync(0, 'utf8').trim()"
                 ".split(/\\s+/).map(Number)\n"
                 "  const sought = numbers[0]\n"
                 "  const sorted = numbers.slice(1)\n"
                 "  console.log({function}(sorted, sorted.length, sought))\n"
                 "}}\n",
}

# The test cases of python_testcases/test_<name>.py, written as JSON for the drivers above
# (the test builds them as Node objects in Python): our transcription, not QuixBugs bytes.
GRAPH_INPUTS: dict[str, tuple[str, object]] = {
    # name: (the test case, its data)
    "detect_cycle": ("test4: 2-node list with no cycle (node7 -> node6)", [7, 6]),
    "breadth_first_search": ("test3: two unconnected nodes, start F, goal E",
                             {"successors": {"F": [], "E": []}, "start": "F", "goal": "E"}),
    "depth_first_search": ("test5: graph with cycles (E -> A), start A, goal F",
                           {"successors": {"A": ["B", "C", "D"], "B": ["E"], "C": ["F"],
                                           "D": [], "E": ["A"], "F": []},
                            "start": "A", "goal": "F"}),
    "minimum_spanning_tree": ("test1: simple tree input",
                              [[1, 2, 10], [2, 3, 15], [3, 4, 10], [1, 4, 10]]),
}

# The inputs of the ConDefects programs: ConDefects has no test cases, so these are ours, each
# in its AtCoder task's input format and within its constraints, read from the correct
# version's parsing and the faulty/correct difference (the labels' notes say why it crashes).
JAVA_INPUTS: dict[str, tuple[str, str]] = {
    # name: (what the input is, its text)
    "abc257_a_42234047": ("N = 2, X = 49 (N does not divide X; the answer is Y)", "2 49\n"),
    "abc322_b_46141348": ("N = M = 2, S = T = ab (a prefix and a suffix; the answer is 0)",
                          "2 2\nab\nab\n"),
    "abc354_b_54533166": ("2 users, ratings summing to 5 (the answer is takahashi)",
                          "2\ntakahashi 2\naoki 3\n"),
    "abc308_b_44890750": ("N = 3 plates, M = 1 priced colour (the answer is 3200)",
                          "3 1\nred green blue\nblue\n800 1600\n"),
}


# The inputs of the TheAlgorithms programs: ours, as (what the input is, its text, the
# commit where ``input_path`` has it when not the program's: a test case the fix added).
class Ours(NamedTuple):
    how: str
    text: str
    commit: str = ""


_NO_INPUT = Ours("ours: one newline (the program reads no input; its main runs its own "
                 "example)", "\n")
ALGO_INPUTS: dict[str, Ours] = {
    "naive_string_search": _NO_INPUT,
    "radix_sort": Ours("ours, a transcription of the test case \"Random order with "
                       "repetitions\" that the fix commit 72a682ab added to this file",
                       "-5 7 4 -2 6 5 8 3 2 -7 -1 0 -3 9 -6 -4 10 9 1 -8 -9 -10\n",
                       "72a682ab88bd3153c146b0759933cd7acf568c7d"),
    "binarysearch": Ours("ours, a transcription of the test case {[]int{1, 4, 5, 6, 7, 10}, "
                         "-25, -1} (\"Absent\") that the fix commit dcecf5b9 added to this "
                         "file: the target, then the array",
                         "-25\n1 4 5 6 7 10\n", "dcecf5b9b85d8730b481625d38a9ab1d23334714"),
    "doubly_linked_list": Ours("ours, for the program's menu: insert 5, delete 5, exit",
                               "1\n5\n2\n5\n0\n"),
    "linked_list": Ours("ours, for the program's menu: reverse (the list is empty), exit",
                        "5\n0\n"),
    "heap_sort": Ours("ours: n = 40 (the array holds 20), then (i * 37) % 101 for i = 0..39",
                      "40\n" + " ".join(str(i * 37 % 101) for i in range(40)) + "\n"),
    "node_neighbors": _NO_INPUT,
    "coin_change": _NO_INPUT,
    "exponential_search": Ours("ours: 40 sought in the array of the file's own commented "
                               "example (lines 52-54), whose 78 is found at once",
                               "40\n2 3 4 10 40 65 78 100\n"),
}

_DIGITS_68EA = ("digits/68ea5d3466c7a9fb4a9219015d32f37de45f50df920793d79bc6028242a1913e9fa55a6"
                "da8262f1bc1f64b15e481dcd74d30dc36a54704a8abeac07d06f0f591")


def _quixbugs(name: str, case: int = 0, driver: str = "args") -> Program:
    test = (f"json_testcases/{name}.json" if driver == "args"
            else f"python_testcases/test_{name}.py")
    return Program(name, "python", QUIXBUGS, f"python_programs/{name}.py", test, case, driver,
                   name)


def _condefects(task: str, submission: str) -> Program:
    folder = f"Code/{task}/Java/{submission}"
    return Program(f"{task}_{submission}", "java", CONDEFECTS, f"{folder}/faultyVersion.java",
                   f"{folder}/correctVersion.java")


def _algorithms(name: str, language: str, repo: Repo, parent: str, path: str,
                edits: tuple[Edit, ...] = (), driver: str = "", function: str = "",
                tests: str = "") -> Program:
    """The file at ``parent``, the commit before the one that fixed (or removed) its crash,
    made a program by ``edits`` and ``driver``; its input (ALGO_INPUTS) is written for it, or
    transcribed from ``tests``."""
    return Program(name, language, repo, path, tests or path, driver=driver,
                   function=function, commit=parent, edits=edits)


PROGRAMS: tuple[Program, ...] = (
    Program("digits_68ea5d34_000", "c", INTROCLASS, f"{_DIGITS_68EA}/000/digits.c",
            "digits/tests/whitebox/1.in"),
    _quixbugs("find_first_in_sorted", 2),
    _quixbugs("find_in_sorted", 2),
    _quixbugs("gcd", 2),
    _quixbugs("kth", 1),
    _quixbugs("mergesort", 2),
    _quixbugs("pascal", 3),
    _quixbugs("possible_change", 2),
    _quixbugs("detect_cycle", driver="list"),
    _quixbugs("breadth_first_search", driver="graph"),
    _quixbugs("depth_first_search", driver="graph"),
    _quixbugs("minimum_spanning_tree", driver="edges"),
    _condefects("abc257_a", "42234047"),
    _condefects("abc322_b", "46141348"),
    _condefects("abc354_b", "54533166"),
    _condefects("abc308_b", "44890750"),
    # TheAlgorithms, each at the parent of the commit named in its comment (SOURCES.md).
    _algorithms("naive_string_search", "go", ALGO_GO,  # fixed by f0fe7078
                "0d28a325b02da5754e022dd5c2e79480aa9bebba", "strings/naiveStringSearch.go"),
    _algorithms("radix_sort", "go", ALGO_GO,  # fixed by 72a682ab
                "efedf3afafb6a64ec3ada0fadfa0853153eb4551", "sorts/radix_sort.go",
                (Edit(1, "package sorts", go_main("fmt")),), "go ints", "RadixSort",
                "sorts/sorts_case_test.go"),
    _algorithms("binarysearch", "go", ALGO_GO,  # fixed by dcecf5b9
                "20aa5797d73b6939f0f1f5bce1c0a53caca7868d", "searches/binarysearch.go",
                (Edit(1, "package searches", go_main("fmt")),), "go search", "binarySearch",
                "searches/search_test.go"),
    _algorithms("doubly_linked_list", "cpp", ALGO_CPP,  # fixed by f55c76d0
                "d963df6fa6a685c22deaba696d4a3a8946b46d57",
                "data_structure/Doubly Linked List.cpp"),
    _algorithms("linked_list", "cpp", ALGO_CPP,  # fixed by 7ed06964
                "5149a9f55015fd5796528fce097f4ed54d37728c", "data_structure/Linked List.cpp"),
    _algorithms("heap_sort", "cpp", ALGO_CPP,  # fixed by de70c5d8
                "edc17ec9e85ad5d2d371990009aa796de21eff06", "sorting/heap_sort.cpp"),
    _algorithms("node_neighbors", "javascript", ALGO_JS,  # fixed by 686ba7e8
                "1d72cbb27329376f4998a0d7ce3bedff2c49153e", "Graphs/NodeNeighbors.js"),
    # Removed (not fixed) by fa152449; its parent 46a2aeb7 only re-spaced three function
    # declarations, so the file is taken where it was written, 80b2aa5a (the version judged).
    _algorithms("coin_change", "javascript", ALGO_JS,
                "80b2aa5a62d70163d7f30fa76112d7b16c1e61a4", "Dynamic-Programming/CoinChange.js"),
    _algorithms("exponential_search", "javascript", ALGO_JS,  # fixed by 90356f34
                "74f296578a3edc0081937e17c9370695848c62b8", "Search/ExponentialSearch.js",
                (Edit(50, "export { binarySearch, exponentialSearch}",
                      "// export { binarySearch, exponentialSearch}"),),
                "js search", "exponentialSearch"),
)


# ------------------------------------------------------------------------------ sources

def program_bytes(mirrors: Path, program: Program) -> bytes:
    """The program as the set holds it: the repository's bytes with its EDITS (a line for a
    line), and the driver, if any, after them."""
    code = git_show(mirrors, program.repo, program.path, program.at)
    driver = DRIVERS[program.driver].format(function=program.function) if program.driver else ""
    return made_program(code, program.edits, driver, f"{program.path} at {program.at}")


def input_bytes(mirrors: Path, program: Program) -> bytes:
    """The crashing input: a test file byte for byte, a json_testcases line's arguments, a
    transcribed QuixBugs test case or our input for a ConDefects or TheAlgorithms program
    (the file it is taken from or written for must exist at the commit)."""
    ours = ALGO_INPUTS.get(program.name)
    source = git_show(mirrors, program.repo, program.input_path, input_at(program))
    if program.repo is INTROCLASS:
        return source
    if program.repo is CONDEFECTS:
        return JAVA_INPUTS[program.name][1].encode()
    if ours is not None:
        return ours.text.encode()
    if program.driver != "args":
        return (json.dumps(GRAPH_INPUTS[program.name][1]) + "\n").encode()
    lines = [line for line in source.decode("utf-8").splitlines() if line.strip()]
    args, _expected = json.loads(lines[program.case - 1])
    return (json.dumps(args if isinstance(args, list) else [args]) + "\n").encode()


def input_at(program: Program) -> str:
    """The commit of ``input_path``: the program's, or that of the test case transcribed."""
    ours = ALGO_INPUTS.get(program.name)
    return ours.commit if ours is not None and ours.commit else program.at


def input_how(program: Program) -> str:
    """How the input was taken, for SOURCES.md's input table."""
    if program.repo is INTROCLASS:
        return "the test file, byte for byte"
    if program.repo is CONDEFECTS:
        return f"ours (not ConDefects'), written for this program: {JAVA_INPUTS[program.name][0]}"
    if program.name in ALGO_INPUTS:
        return ALGO_INPUTS[program.name].how
    if program.driver == "args":
        return (f"line {program.case}'s arguments (json.dumps of the first element, and a "
                "newline)")
    return f"{GRAPH_INPUTS[program.name][0]}, written as JSON"


# ------------------------------------------------------------------------------------ main

def table_rows(mirrors: Path) -> list[str]:
    rows = []
    for p in PROGRAMS:
        digest = sha256(program_bytes(mirrors, p))
        rows.append(f"| {p.file} | {p.repo.name} @ {p.at} | {p.path} | "
                    f"{p.repo.licence} ({p.repo.licence_file}) | {p.author} | {digest} |")
    rows.append("")
    for p in PROGRAMS:
        rows.append(f"| {p.input_file} | {p.repo.name} @ {input_at(p)} | {p.input_path} | "
                    f"{input_how(p)} |")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True,
                        help="folder of bare mirrors owner+name/repo")
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "real_crashes")
    parser.add_argument("--table", action="store_true",
                        help="print SOURCES.md's rows (programs, then inputs) and stop")
    args = parser.parse_args(argv)
    mirrors: Path = args.mirrors
    out: Path = args.out
    if args.table:
        print("\n".join(table_rows(mirrors)))
        return 0

    expected = {s.file: s.sha256 for s in read_sources(out)}
    for sub in (*EXTENSIONS, "inputs", "LICENSES"):
        if (out / sub).exists():
            shutil.rmtree(out / sub)
    write_licences(mirrors, out, REPOS)
    made: dict[str, bytes] = {}
    for p in PROGRAMS:
        made[p.file] = code = program_bytes(mirrors, p)
        write_program(out, p.file, code)
        write_program(out, p.input_file, input_bytes(mirrors, p))
        print(f"{p.file} <- {p.repo.name}@{p.at[:8]}:{p.path}; {p.input_file} <- "
              f"{p.input_path}")
    faults = digest_faults(made, expected, "this script")
    if faults:
        print("\n".join(faults), file=sys.stderr)
        return 1
    print(f"{len(PROGRAMS)} programs, their inputs and {len(REPOS)} licence texts in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
