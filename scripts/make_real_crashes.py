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

Each repository's licence text goes to ``LICENSES/<owner>__<name>.txt``. Every re-created
program's sha256 is checked against SOURCES.md's table; ``--table`` prints that table's rows
instead of checking (for writing SOURCES.md when the set changes).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from git_mirrors import git_show as mirror_show  # noqa: E402

from bench.real_submissions import read_sources  # noqa: E402


@dataclass(frozen=True)
class Repo:
    name: str  # owner/name on GitHub
    commit: str
    licence: str  # SPDX id
    licence_path: str  # the licence text inside the repository
    author: str  # for a program whose author the repository does not name

    @property
    def licence_file(self) -> str:
        owner, name = self.name.split("/", 1)
        return f"LICENSES/{owner}__{name}.txt"


INTROCLASS = Repo("ProgramRepair/IntroClass", "897fd9ca72a4cd2fa0884b6d2d9d09a95603cb65",
                  "BSD-3-Clause", "LICENSE", "")
QUIXBUGS = Repo("jkoppel/QuixBugs", "4257f44b0ff1181dedaedee6a447e133219fcebf", "MIT",
                "LICENSE", "Quixey Challenge; QuixBugs (Lin, Koppel, Chen, Solar-Lezama)")
CONDEFECTS = Repo("appmlk/ConDefects", "43f0834a82c5e3bc4516c079fe7765f63b1a15cd", "MIT",
                  "LICENSE", "")
REPOS = (INTROCLASS, QUIXBUGS, CONDEFECTS)
EXTENSIONS = {"c": ".c", "python": ".py", "java": ".java"}


@dataclass(frozen=True)
class Program:
    name: str  # the file stem in the set: <language>/<name>.<ext>, inputs/<name>.in
    language: str  # "c", "python" or "java"
    repo: Repo
    path: str  # the program inside the repository
    input_path: str  # the test file the input comes from (ConDefects: the correct version)
    case: int = 0  # QuixBugs json_testcases: the line (1-based) whose arguments are taken
    driver: str = ""  # QuixBugs: key of DRIVERS appended to the function
    function: str = ""  # QuixBugs: the function the driver calls

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


# The driver's first line says whose code it is; ``{function}`` is the QuixBugs function.
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
)


# ------------------------------------------------------------------------------ sources

def git_show(mirrors: Path, repo: Repo, path: str) -> bytes:
    return mirror_show(mirrors, repo.name, repo.commit, path)


def program_bytes(mirrors: Path, program: Program) -> bytes:
    """The program as the set holds it: the repository's bytes, and for QuixBugs the driver
    after them."""
    original = git_show(mirrors, program.repo, program.path)
    if not program.driver:
        return original
    return original + DRIVERS[program.driver].format(function=program.function).encode()


def input_bytes(mirrors: Path, program: Program) -> bytes:
    """The crashing input: a test file byte for byte, a json_testcases line's arguments, a
    transcribed QuixBugs test case or our input for a ConDefects program (the file it is
    taken from or written for must exist at the commit)."""
    source = git_show(mirrors, program.repo, program.input_path)
    if program.repo is INTROCLASS:
        return source
    if program.repo is CONDEFECTS:
        return JAVA_INPUTS[program.name][1].encode()
    if program.driver != "args":
        return (json.dumps(GRAPH_INPUTS[program.name][1]) + "\n").encode()
    lines = [line for line in source.decode("utf-8").splitlines() if line.strip()]
    args, _expected = json.loads(lines[program.case - 1])
    return (json.dumps(args if isinstance(args, list) else [args]) + "\n").encode()


def input_how(program: Program) -> str:
    """How the input was taken, for SOURCES.md's input table."""
    if program.repo is INTROCLASS:
        return "the test file, byte for byte"
    if program.repo is CONDEFECTS:
        return f"ours (not ConDefects'), written for this program: {JAVA_INPUTS[program.name][0]}"
    if program.driver == "args":
        return (f"line {program.case}'s arguments (json.dumps of the first element, and a "
                "newline)")
    return f"{GRAPH_INPUTS[program.name][0]}, written as JSON"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ------------------------------------------------------------------------------------ main

def table_rows(mirrors: Path) -> list[str]:
    rows = []
    for p in PROGRAMS:
        digest = sha256(program_bytes(mirrors, p))
        rows.append(f"| {p.file} | {p.repo.name} @ {p.repo.commit} | {p.path} | "
                    f"{p.repo.licence} ({p.repo.licence_file}) | {p.author} | {digest} |")
    rows.append("")
    for p in PROGRAMS:
        rows.append(f"| {p.input_file} | {p.repo.name} @ {p.repo.commit} | {p.input_path} | "
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
    faults = []
    for repo in REPOS:
        target = out / repo.licence_file
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(git_show(mirrors, repo, repo.licence_path))
    for p in PROGRAMS:
        code = program_bytes(mirrors, p)
        (out / p.file).parent.mkdir(parents=True, exist_ok=True)
        (out / p.file).write_bytes(code)
        (out / p.input_file).parent.mkdir(parents=True, exist_ok=True)
        (out / p.input_file).write_bytes(input_bytes(mirrors, p))
        if p.file not in expected:
            faults.append(f"{p.file}: no row in SOURCES.md")
        elif sha256(code) != expected[p.file]:
            faults.append(f"{p.file}: sha256 {sha256(code)} differs from SOURCES.md's "
                          f"{expected[p.file]}")
        print(f"{p.file} <- {p.repo.name}:{p.path}; {p.input_file} <- {p.input_path}")
    faults += [f"SOURCES.md: {f} is not made by this script"
               for f in sorted(set(expected) - {p.file for p in PROGRAMS})]
    if faults:
        print("\n".join(faults), file=sys.stderr)
        return 1
    print(f"{len(PROGRAMS)} programs, their inputs and {len(REPOS)} licence texts in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
