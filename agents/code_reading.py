"""Reading the candidate's code the way an interviewer does: facts from a real parser.

The judge says whether the code works; this module says what the code *is*: how deeply its
loops nest over the input, whether it recurses (and remembers), where it sorts, which
containers it uses, and whether it guards the empty input. The facts come from tree-sitter
grammars (registry wheels, one per judge language), so they hold for all six languages
without running anything, and a file that does not parse still gives what could be read,
marked ``partial``, never an exception.

``follow_ups`` turns the facts into at most two short, speakable questions. It reads only
the candidate's code and the problem's public view (statement, input format, constraints),
so it cannot leak a hidden test or the reference solution.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from tree_sitter import Language, Node, Parser

# Must equal judge.languages.LANGUAGES (agents may not import judge; a test checks it).
CODE_LANGUAGES: tuple[str, ...] = ("python", "c", "cpp", "java", "go", "javascript")
# The container names a reader reports.
CONTAINERS = frozenset({"hash_map", "tree_map", "set", "tree_set", "list", "array", "vector",
                        "deque", "queue", "stack", "heap", "linked_list"})

# A literal loop bound at or above this is an input-sized array bound (MAXN), not a constant
# such as an alphabet (26), a bit count (31) or four directions.
_SMALL_CONSTANT = 1000


@dataclass(frozen=True)
class RecursiveFunction:
    name: str
    line: int            # 1-based line of the definition
    self_calls: int      # call sites of itself in its body
    call_in_loop: bool   # one of them inside a loop (a branching recursion too)
    memoised: bool       # a cache decorator, or a memo keyed by its arguments
    halving: bool = False  # divides its range (`/ 2`, `>> 1`): divide and conquer

    @property
    def branching(self) -> bool:
        """More than one recursive call per call on a range that shrinks by a constant:
        exponential without a memo (merge sort's two calls on halves are not)."""
        return (self.self_calls >= 2 or self.call_in_loop) and not self.halving


@dataclass(frozen=True)
class CodeFacts:
    """What a reader sees in one submission. ``partial``: the file did not parse cleanly (or
    the language is unknown) and the facts cover only what could be read."""

    language: str
    partial: bool = False
    max_loop_depth: int = 0          # deepest nesting of any loops
    input_loop_depth: int = 0        # deepest nesting of loops whose bound is not a constant
    nested_loop_line: int | None = None   # the inner loop of the deepest input nesting (>= 2)
    recursion: tuple[RecursiveFunction, ...] = ()
    sort_calls: int = 0
    sort_in_loop_line: int | None = None  # first sort inside an input-sized or while loop
    containers: frozenset[str] = frozenset()   # names from CONTAINERS
    empty_guard: bool = False        # an explicit check for empty / zero-sized input
    raises_recursion_limit: bool = False   # Python: sys.setrecursionlimit is called

    @property
    def inner_loop_over_input(self) -> bool:
        return self.input_loop_depth >= 2

    @property
    def sort_in_loop(self) -> bool:
        return self.sort_in_loop_line is not None

    @property
    def recursive(self) -> bool:
        return bool(self.recursion)

    @property
    def memoised(self) -> bool:
        return any(r.memoised for r in self.recursion)


# --- grammars -----------------------------------------------------------------------------

_GRAMMARS = {"python": "tree_sitter_python", "c": "tree_sitter_c", "cpp": "tree_sitter_cpp",
             "java": "tree_sitter_java", "go": "tree_sitter_go",
             "javascript": "tree_sitter_javascript"}


@cache
def _parser(language: str) -> Parser:
    # Imported lazily: a coding round in one language loads one grammar.
    grammar = importlib.import_module(_GRAMMARS[language])
    return Parser(Language(grammar.language()))


_FOR = {
    "python": {"for_statement"},
    "c": {"for_statement"},
    "cpp": {"for_statement", "for_range_loop"},
    "java": {"for_statement", "enhanced_for_statement"},
    "go": {"for_statement"},
    "javascript": {"for_statement", "for_in_statement"},
}
_WHILE = {"while_statement", "do_statement"}
_COMPREHENSIONS = {"list_comprehension", "set_comprehension", "dictionary_comprehension",
                   "generator_expression"}
_JS_LOOP_METHODS = {"forEach", "map", "filter", "reduce", "some", "every", "flatMap", "find",
                    "findIndex"}
_FUNCTIONS = {"function_definition", "method_declaration", "function_declaration",
              "generator_function_declaration", "method_definition", "variable_declarator"}
_CALLS = {"call", "call_expression", "method_invocation"}
_SUBSCRIPTS = {"subscript": "value", "subscript_expression": "argument",
               "array_access": "array", "index_expression": "operand"}
_ASSIGNMENTS = {"assignment", "augmented_assignment", "assignment_expression",
                "assignment_statement"}
_MEMO_WRITES = {"put", "set", "computeIfAbsent", "putIfAbsent", "emplace", "insert",
                "setdefault"}
_NUMBERS = {"integer", "float", "number_literal", "decimal_integer_literal", "int_literal",
            "float_literal", "number", "decimal_floating_point_literal"}
_CONDITIONALS = {"if_statement", "conditional_expression", "ternary_expression"}

_SORTS = {
    "python": {"sorted", "sort"},
    "c": {"qsort"},
    "cpp": {"sort", "stable_sort", "partial_sort"},
    "java": {"sort", "parallelSort"},
    "javascript": {"sort", "toSorted"},
}
_GO_SORTS = {"Ints", "Strings", "Float64s", "Slice", "SliceStable", "Sort", "Stable",
             "SortFunc", "SortStableFunc"}

# Names that mean a container, by language and the node type they appear as.
_CONTAINER_NAMES: dict[str, dict[str, str]] = {
    "python": {"dict": "hash_map", "defaultdict": "hash_map", "Counter": "hash_map",
               "OrderedDict": "hash_map", "set": "set", "frozenset": "set", "list": "list",
               "deque": "deque", "heapq": "heap", "heappush": "heap", "heapify": "heap",
               "SortedList": "tree_set", "array": "array"},
    "c": {"malloc": "array", "calloc": "array"},
    "cpp": {"vector": "vector", "unordered_map": "hash_map", "map": "tree_map",
            "multimap": "tree_map", "unordered_set": "set", "set": "tree_set",
            "multiset": "tree_set", "deque": "deque", "queue": "queue", "stack": "stack",
            "priority_queue": "heap", "list": "linked_list", "array": "array"},
    "java": {"HashMap": "hash_map", "LinkedHashMap": "hash_map", "Map": "hash_map",
             "Hashtable": "hash_map", "TreeMap": "tree_map", "HashSet": "set",
             "LinkedHashSet": "set", "Set": "set", "TreeSet": "tree_set",
             "ArrayList": "list", "List": "list", "Vector": "list",
             "LinkedList": "linked_list", "ArrayDeque": "deque", "Deque": "deque",
             "Queue": "queue", "Stack": "stack", "PriorityQueue": "heap"},
    "go": {},
    "javascript": {"Map": "hash_map", "Set": "set", "Array": "array"},
}
_CONTAINER_NAME_NODES = {
    "python": {"identifier"}, "c": {"identifier"}, "cpp": {"type_identifier"},
    "java": {"type_identifier"}, "go": set(), "javascript": {"identifier"},
}
_CONTAINER_NODES: dict[str, dict[str, str]] = {
    "python": {"dictionary": "hash_map", "dictionary_comprehension": "hash_map",
               "set": "set", "set_comprehension": "set", "list": "list",
               "list_comprehension": "list"},
    "c": {"array_declarator": "array"},
    "cpp": {"array_declarator": "array"},
    # Not array_type: `String[] args` is in every Java main.
    "java": {"array_creation_expression": "array", "array_initializer": "array"},
    "go": {"map_type": "hash_map", "slice_type": "array", "array_type": "array"},
    "javascript": {"array": "array"},
}
_GO_CONTAINER_IMPORTS = {"container/heap": "heap", "container/list": "linked_list"}


# --- small tree helpers ------------------------------------------------------------------

def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text else ""


def _walk(node: Node) -> Iterator[Node]:
    """Every node under ``node`` (itself included), iteratively: deep expression chains
    must not hit Python's recursion limit."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _identifiers(node: Node | None) -> set[str]:
    """Variable names used in an expression: not called function names, not member names."""
    if node is None:
        return set()
    names: set[str] = set()
    for n in _walk(node):
        if n.type != "identifier" or n.parent is None:
            continue
        parent, field = n.parent, _field_of(n)
        if field in {"function", "attribute", "name", "field", "property"} and parent.type in (
                _CALLS | {"attribute", "field_access", "member_expression",
                          "selector_expression", "field_expression"}):
            continue
        names.add(_text(n))
    return names


def _field_of(node: Node) -> str | None:
    parent = node.parent
    if parent is None:
        return None
    for i, child in enumerate(parent.children):
        if child.id == node.id:
            return parent.field_name_for_child(i)
    return None


def _number(node: Node) -> float | None:
    try:
        return float(int(_text(node).rstrip("lLuU").replace("_", ""), 0))
    except ValueError:
        try:
            return float(_text(node).rstrip("fFdD"))
        except ValueError:
            return None


def _line(node: Node) -> int:
    return node.start_point[0] + 1


# --- the reader --------------------------------------------------------------------------

@dataclass(frozen=True)
class _Loop:
    node: Node
    over_input: bool


class _Reader:
    def __init__(self, language: str, root: Node):
        self.lang = language
        self.root = root
        self.constants = self._constants()

    # constants: names only ever given a small number (26, MAXC) -------------------------
    def _constants(self) -> set[str]:
        small: set[str] = set()
        other: set[str] = set()
        for node in _walk(self.root):
            pair = self._binding(node)
            if pair is None:
                continue
            name, value = pair
            if value is not None and value.type == "preproc_def":
                small.add(name)
                continue
            if value is not None and value.type in _NUMBERS:
                number = _number(value)
                if number is not None and abs(number) < _SMALL_CONSTANT:
                    small.add(name)
                    continue
            other.add(name)
        return small - other

    def _binding(self, node: Node) -> tuple[str, Node | None] | None:
        t = node.type
        if t == "preproc_def":
            # `#define MAXC 26`: the value is raw text (preproc_arg), not a number node.
            name = _text(node.child_by_field_name("name"))
            arg = _text(node.child_by_field_name("value")).strip()
            return (name, None) if not arg.isdigit() or int(arg) >= _SMALL_CONSTANT \
                else (name, node)
        if t not in {"assignment", "init_declarator", "variable_declarator", "const_spec"}:
            return None
        if not self._declared_constant(node):
            return None
        left = (node.child_by_field_name("left") or node.child_by_field_name("name")
                or node.child_by_field_name("declarator"))
        right = node.child_by_field_name("right") or node.child_by_field_name("value")
        if left is None or left.type != "identifier":
            return None
        if right is not None and right.type == "expression_list" \
                and right.named_child_count == 1:
            right = right.named_children[0]
        return _text(left), right

    def _declared_constant(self, node: Node) -> bool:
        """Declared as a constant: loop counters and input sizes start at small numbers too,
        so only ``const``/``final``/``#define``/Go ``const``/Python ``UPPER_CASE`` count."""
        t, parent = node.type, node.parent
        if t == "const_spec":
            return True
        if t == "assignment":
            return bool(re.fullmatch(r"[A-Z][A-Z0-9_]*", _text(node.child_by_field_name(
                "left"))))
        if parent is None:
            return False
        if t == "init_declarator":
            return any(c.type == "type_qualifier" and _text(c) in {"const", "constexpr"}
                       for c in parent.children)
        if self.lang == "java":
            return any(c.type == "modifiers" and "final" in _text(c).split()
                       for c in parent.children)
        return parent.type == "lexical_declaration" and _text(parent).startswith("const")

    def _is_constant(self, exprs: list[Node | None], loop_vars: set[str]) -> bool:
        """A bound with no input in it: only literals below the threshold and constants."""
        names = set().union(*(_identifiers(e) for e in exprs)) - loop_vars - self.constants
        if names:
            return False
        for expr in exprs:
            if expr is None:
                continue
            for n in _walk(expr):
                if n.type in _NUMBERS:
                    number = _number(n)
                    if number is None or abs(number) >= _SMALL_CONSTANT:
                        return False
        return True

    # loops ------------------------------------------------------------------------------
    def loop(self, node: Node) -> _Loop | None:
        """``node`` as a loop, or None; ``over_input`` when its bound is not a constant.
        While loops count for nesting but not as input-bound: their trip count is unknown
        (a two-pointer or BFS while is linear overall)."""
        t = node.type
        if t in _WHILE:
            return _Loop(node, over_input=False)
        if self.lang == "javascript" and t == "call_expression":
            return self._js_callback_loop(node)
        if t not in _FOR[self.lang]:
            return None
        if t == "for_statement" and self.lang == "go":
            return self._go_for(node)
        if t == "for_statement" and self.lang != "python":
            init = node.child_by_field_name("initializer") or node.child_by_field_name("init")
            cond = node.child_by_field_name("condition")
            update = (node.child_by_field_name("update")
                      or node.child_by_field_name("increment"))
            if cond is None:
                return _Loop(node, over_input=False)
            return _Loop(node, not self._is_constant([init, cond], _identifiers(update)))
        # for-each: Python for, C++ range-for, Java enhanced for, JS for-in/of.
        iterable = node.child_by_field_name("right") or node.child_by_field_name("value")
        return _Loop(node, not self._is_constant([iterable], set()))

    def _go_for(self, node: Node) -> _Loop:
        for child in node.named_children:
            if child.type == "for_clause":
                cond = child.child_by_field_name("condition")
                if cond is None:
                    return _Loop(node, over_input=False)
                init = child.child_by_field_name("initializer")
                loop_vars = _identifiers(child.child_by_field_name("update"))
                return _Loop(node, not self._is_constant([init, cond], loop_vars))
            if child.type == "range_clause":
                return _Loop(node, not self._is_constant(
                    [child.child_by_field_name("right")], set()))
        return _Loop(node, over_input=False)  # `for cond {}` or `for {}`: a while

    def _js_callback_loop(self, node: Node) -> _Loop | None:
        function = node.child_by_field_name("function")
        if function is None or function.type != "member_expression":
            return None
        if _text(function.child_by_field_name("property")) not in _JS_LOOP_METHODS:
            return None
        args = node.child_by_field_name("arguments")
        if args is None or not any(a.type in {"arrow_function", "function_expression"}
                                   for a in args.named_children):
            return None
        return _Loop(node, not self._is_constant([function.child_by_field_name("object")],
                                                 set()))

    def loops(self) -> tuple[int, int, Node | None, dict[int, tuple[int, int]]]:
        """(max depth, max input depth, the inner loop at max input depth, and per node id
        the (depth, input depth) of the loops enclosing it)."""
        best, best_input, inner = 0, 0, None
        enclosing: dict[int, tuple[int, int]] = {}
        stack: list[tuple[Node, int, int]] = [(self.root, 0, 0)]
        while stack:
            node, depth, in_depth = stack.pop()
            enclosing[node.id] = (depth, in_depth)
            loop = self.loop(node)
            if loop is not None:
                depth, in_depth = depth + 1, in_depth + (1 if loop.over_input else 0)
                if in_depth > best_input:
                    best_input, inner = in_depth, node
                best = max(best, depth)
            elif self.lang == "python" and node.type in _COMPREHENSIONS:
                # `[.. for x in a for y in b]`: each for clause is one more level.
                for clause in node.named_children:
                    if clause.type == "for_in_clause":
                        depth += 1
                        if not self._is_constant([clause.child_by_field_name("right")],
                                                 set()):
                            in_depth += 1
                best = max(best, depth)
                if in_depth > best_input:
                    best_input, inner = in_depth, node
            for child in reversed(node.children):
                stack.append((child, depth, in_depth))
        return best, best_input, inner if best_input >= 2 else None, enclosing

    # calls ------------------------------------------------------------------------------
    @staticmethod
    def callee(node: Node) -> tuple[str, str | None]:
        """(called name, the object it is called on or None) of a call node."""
        if node.type == "method_invocation":
            obj = node.child_by_field_name("object")
            return _text(node.child_by_field_name("name")), (_text(obj) if obj else None)
        function = node.child_by_field_name("function")
        while function is not None and function.type in {"template_function",
                                                          "qualified_identifier"}:
            function = function.child_by_field_name("name")
        if function is None:
            return "", None
        for member, obj_field in (("attribute", "object"), ("field_expression", "argument"),
                                  ("member_expression", "object"),
                                  ("selector_expression", "operand")):
            if function.type == member:
                name = (function.child_by_field_name("attribute")
                        or function.child_by_field_name("field")
                        or function.child_by_field_name("property"))
                return _text(name), _text(function.child_by_field_name(obj_field))
        return _text(function), None

    def calls(self, node: Node) -> Iterator[tuple[Node, str, str | None]]:
        for n in _walk(node):
            if n.type in _CALLS:
                name, obj = self.callee(n)
                yield n, name, obj

    def is_sort(self, name: str, obj: str | None) -> bool:
        if self.lang == "go":
            return obj in {"sort", "slices"} and name in _GO_SORTS
        if self.lang == "python" and name == "sorted":
            return obj is None
        return name in _SORTS[self.lang]

    # functions ---------------------------------------------------------------------------
    def function(self, node: Node) -> tuple[str, set[str], Node] | None:
        """(name, parameter names, body) of a function definition node, or None."""
        t = node.type
        if t not in _FUNCTIONS:
            return None
        if t == "variable_declarator":  # JS: const f = (n) => ...
            value = node.child_by_field_name("value")
            if value is None or value.type not in {"arrow_function", "function_expression"}:
                return None
            params = (value.child_by_field_name("parameters")
                      or value.child_by_field_name("parameter"))
            body = value.child_by_field_name("body")
            name = _text(node.child_by_field_name("name"))
            return (name, _identifiers(params), body) if body is not None else None
        body = node.child_by_field_name("body")
        if body is None:
            return None
        if self.lang in {"c", "cpp"}:
            declarator = node.child_by_field_name("declarator")
            while declarator is not None and declarator.type != "function_declarator":
                declarator = declarator.child_by_field_name("declarator")
            if declarator is None:
                return None
            target = declarator.child_by_field_name("declarator")
            while target is not None and target.type in {"qualified_identifier",
                                                         "template_function"}:
                target = target.child_by_field_name("name")
            params = declarator.child_by_field_name("parameters")
            return _text(target), _identifiers(params), body
        params = node.child_by_field_name("parameters")
        return _text(node.child_by_field_name("name")), _identifiers(params), body

    def recursion(self, enclosing: dict[int, tuple[int, int]]) -> list[RecursiveFunction]:
        found = []
        for node in _walk(self.root):
            fn = self.function(node)
            if fn is None or not fn[0]:
                continue
            name, params, body = fn
            base_depth = enclosing.get(body.id, (0, 0))[0]
            sites = [c for c, called, obj in self.calls(body) if called == name and (
                obj is None or obj in {"self", "this", "cls"} or node.type ==
                "method_declaration" and self.lang == "go")]
            if not sites:
                continue
            in_loop = any(enclosing.get(s.id, (0, 0))[0] > base_depth for s in sites)
            found.append(RecursiveFunction(
                name=name, line=_line(node), self_calls=len(sites), call_in_loop=in_loop,
                memoised=self._decorated_cache(node) or self._memo(body, params),
                halving=bool(_HALVING.search(_text(body)))))
        return found

    def _decorated_cache(self, node: Node) -> bool:
        parent = node.parent
        if self.lang != "python" or parent is None or parent.type != "decorated_definition":
            return False
        return any("cache" in _text(d) for d in parent.named_children if d.type == "decorator")

    def _memo(self, body: Node, params: set[str]) -> bool:
        """A container written at a key made of the arguments and consulted in a condition
        (``if n in memo``, ``memo.count(n)``, ``dp[i] != -1``, Go's ``v, ok := memo[n]``)."""
        written: set[str] = set()
        for node in _walk(body):
            if node.type in _ASSIGNMENTS:
                target = node.child_by_field_name("left")
                if target is not None and target.type == "expression_list" \
                        and target.named_child_count:
                    target = target.named_children[0]
                base = self._subscript_base(target, params)
                if base:
                    written.add(base)
        for call, name, obj in self.calls(body):
            if name == "computeIfAbsent":
                return True
            args = call.child_by_field_name("arguments")
            if name in _MEMO_WRITES and obj and args is not None and args.named_child_count \
                    and _identifiers(args.named_children[0]) & params:
                written.add(obj)
        if not written:
            return False
        return any(_identifiers(c) & written for c in self.conditions(body))

    @staticmethod
    def _subscript_base(node: Node | None, params: set[str]) -> str | None:
        keyed = False
        while node is not None and node.type in _SUBSCRIPTS:
            index = [c for c in node.named_children if _field_of(c) != _SUBSCRIPTS[node.type]]
            keyed = keyed or any(_identifiers(i) & params for i in index)
            node = node.child_by_field_name(_SUBSCRIPTS[node.type])
        if node is None or not keyed or node.type not in {"identifier", "field_expression",
                                                          "attribute", "member_expression"}:
            return None
        return _text(node) if node.type == "identifier" else _text(node).split(".")[-1]

    def conditions(self, node: Node) -> Iterator[Node]:
        for n in _walk(node):
            if n.type not in _CONDITIONALS:
                continue
            if n.type == "conditional_expression" and self.lang == "python":
                if n.named_child_count >= 2:
                    yield n.named_children[1]
                continue
            for field in ("condition", "initializer"):
                part = n.child_by_field_name(field)
                if part is not None:
                    yield part

    # guards and containers ------------------------------------------------------------------
    def empty_guard(self) -> bool:
        return any(self._guards_empty(c) for c in self.conditions(self.root))

    def _guards_empty(self, cond: Node) -> bool:
        for n in _walk(cond):
            if n.type == "not_operator":  # Python: `if not a`
                arg = n.child_by_field_name("argument")
                if arg is not None and (arg.type == "identifier" or self._is_size(arg)):
                    return True
            if n.type == "unary_expression" and _text(n).startswith("!"):
                arg = n.child_by_field_name("argument") or n.child_by_field_name("operand")
                if arg is not None and self._is_size(arg):
                    return True
            if n.type in _CALLS and self.callee(n)[0] in {"empty", "isEmpty"}:
                return True
            if n.type in {"comparison_operator", "binary_expression"} \
                    and n.named_child_count == 2:
                left, right = n.named_children
                operator = _text(n)[left.end_byte - n.start_byte:
                                    right.start_byte - n.start_byte].strip()
                if self._compares_to_empty(left, operator, right) or self._compares_to_empty(
                        right, _MIRROR.get(operator, operator), left):
                    return True
        return False

    def _compares_to_empty(self, size: Node, operator: str, literal: Node) -> bool:
        if literal.type not in _NUMBERS or not (size.type == "identifier"
                                                 or self._is_size(size)):
            return False
        number = _number(literal)
        return (number == 0 and operator in {"==", "===", "<="}) or (
            number == 1 and operator in {"<", "<="}) or (number == 2 and operator == "<")

    def _is_size(self, node: Node) -> bool:
        """``len(a)``, ``a.size()``, ``a.length``, ``a.length()``, ``a.Len()``."""
        if node.type in _CALLS:
            name, obj = self.callee(node)
            return (name == "len" and obj is None) or name in {"size", "length", "Len"}
        if node.type in {"field_access", "member_expression", "field_expression"}:
            return _text(node).rsplit(".", 1)[-1] in {"length", "size"}
        return False

    def containers(self) -> frozenset[str]:
        names = _CONTAINER_NAMES[self.lang]
        name_nodes = _CONTAINER_NAME_NODES[self.lang]
        node_types = _CONTAINER_NODES[self.lang]
        found: set[str] = set()
        for n in _walk(self.root):
            if n.type in node_types:
                found.add(node_types[n.type])
            elif n.type in name_nodes and _text(n) in names:
                found.add(names[_text(n)])
            elif self.lang == "go" and n.type == "interpreted_string_literal":
                kind = _GO_CONTAINER_IMPORTS.get(_text(n).strip('"'))
                if kind:
                    found.add(kind)
            elif self.lang == "javascript" and n.type == "object" and n.named_child_count == 0:
                found.add("hash_map")  # `{}` used as a map
        return frozenset(found)

    def read(self, partial: bool) -> CodeFacts:
        depth, input_depth, inner, enclosing = self.loops()
        sorts = [(c, enclosing.get(c.id, (0, 0))) for c, name, obj in self.calls(self.root)
                 if self.is_sort(name, obj)]
        in_loop = [c for c, _ in sorts if self._in_costly_loop(c)]
        recursion_limit = self.lang == "python" and any(
            name == "setrecursionlimit" for _, name, _ in self.calls(self.root))
        return CodeFacts(
            language=self.lang, partial=partial, max_loop_depth=depth,
            input_loop_depth=input_depth,
            nested_loop_line=_line(inner) if inner is not None else None,
            recursion=tuple(self.recursion(enclosing)), sort_calls=len(sorts),
            sort_in_loop_line=min((_line(c) for c in in_loop), default=None),
            containers=self.containers(), empty_guard=self.empty_guard(),
            raises_recursion_limit=recursion_limit)

    def _in_costly_loop(self, node: Node) -> bool:
        """Inside a loop over the input or a while loop (not one over a small constant), and
        in its body: ``for x in sorted(a)`` sorts once."""
        child, parent = node, node.parent
        while parent is not None:
            loop = self.loop(parent)
            once = _evaluated_once(parent, child)
            if not once and loop is not None and (loop.over_input or parent.type in _WHILE):
                return True
            if not once and self.lang == "python" and parent.type in _COMPREHENSIONS:
                return True
            child, parent = parent, parent.parent
        return False


def _evaluated_once(loop: Node, child: Node) -> bool:
    """``child`` is the part of ``loop`` computed before it starts: a for-each's iterable,
    or the first iterable of a Python comprehension."""
    if loop.type in _COMPREHENSIONS:
        first = next((c for c in loop.named_children if c.type == "for_in_clause"), None)
        return first is not None and first.id == child.id
    iterable = loop.child_by_field_name("right") or loop.child_by_field_name("value")
    return iterable is not None and iterable.id == child.id


_HALVING = re.compile(r"(?://|/|>>)\s*[12]\b")
_MIRROR = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}


def read_code(source: str, language: str) -> CodeFacts:
    """The facts of ``source`` in ``language``. Never raises for bad code: a file with syntax
    errors gives the facts of what parsed, ``partial=True``; an unknown language gives empty
    partial facts."""
    if language not in CODE_LANGUAGES:
        return CodeFacts(language=language, partial=True)
    tree = _parser(language).parse(source.encode("utf-8", "replace"))
    root = tree.root_node
    return _Reader(language, root).read(partial=root.has_error)


# --- follow-up questions --------------------------------------------------------------------

_NESTING_WORDS = {2: "two", 3: "three", 4: "four"}


def follow_ups(facts: CodeFacts, problem: Mapping[str, Any], limit: int = 2) -> list[str]:
    """At most ``limit`` short questions about the code, the most important first.

    ``problem`` is the problem's public view (``Problem.public()`` or the ``coding_task``
    payload): only its statement, input format and constraints are read, so nothing hidden
    can reach the words.
    """
    questions: list[str] = []
    noun = _input_noun(problem)
    if facts.sort_in_loop_line is not None:
        questions.append(f"You sort inside a loop, on line {facts.sort_in_loop_line}: "
                         "what does that cost over the whole input?")
    blowup = next((r for r in facts.recursion if r.branching and not r.memoised), None)
    if blowup is not None:
        questions.append(f"Your recursion in {blowup.name} has no memo: how many calls "
                         "does it make for n = 40?")
    if facts.inner_loop_over_input:
        nesting = _NESTING_WORDS.get(facts.input_loop_depth, str(facts.input_loop_depth))
        # For a large n a quadratic pass is the thing to fix; for a small table (a DP) it is
        # the intended shape, and the question is only what it costs.
        fix = ("can you do it in one pass?" if _max_size(problem) >= 10_000
               and "dynamic-programming" not in (problem.get("tags") or [])
               else "what does that cost for the largest input?")
        questions.append(f"You have {nesting} nested loops over the {noun}: {fix}")
    deep = next((r for r in facts.recursion if not r.branching and not r.memoised
                 and not r.halving), None)
    if (deep is not None and facts.language == "python" and not facts.raises_recursion_limit
            and _max_size(problem) >= 10_000):
        questions.append(f"{deep.name} recurses once per step: how deep does it go on the "
                         "largest input, and what does Python do at that depth?")
    if not facts.empty_guard and not facts.partial:
        smallest = _smallest_n(problem)
        if smallest == 0:
            questions.append(f"What happens when the {noun} is empty?" if noun != "input"
                             else "What happens when n is 0?")
        elif smallest is None:
            questions.append(f"What happens when the {noun} is empty?")
        elif noun in {"array", "string"}:
            questions.append(f"What does your code do when the {noun} has a single "
                             f"{'element' if noun == 'array' else 'character'}?")
    return questions[:limit]


def _public_text(problem: Mapping[str, Any]) -> str:
    return " ".join(str(problem.get(k) or "") for k in ("statement", "input_format",
                                                         "constraints"))


def _input_noun(problem: Mapping[str, Any]) -> str:
    text = _public_text(problem).lower()
    if re.search(r"\bstrings?\b|\bbrackets?\b|\bletters\b", text):
        return "string"
    if re.search(r"\bintegers\b|\barray\b|\bnumbers\b|\bvalues\b", text):
        return "array"
    return "input"


_LE = r"\s*(?:<=|≤|\\le)\s*"


def _smallest_n(problem: Mapping[str, Any]) -> int | None:
    """The smallest input the public text allows: 0 (``0 <= n``), 1 (``1 <= n``, "non-empty")
    or None when it does not say."""
    text = _public_text(problem)
    if re.search(rf"\b0{_LE}(?:n|\|\w+\|)", text):
        return 0
    if re.search(r"non-?empty|at least one", text, re.IGNORECASE) or re.search(
            rf"\b[1-9]\d*{_LE}(?:\w+{_LE})?(?:n|\|\w+\|)", text):
        return 1
    return None


def _max_size(problem: Mapping[str, Any]) -> float:
    """The largest stated bound on n (``n <= 200000``, ``n <= 10^5``); 0 when none."""
    best = 0.0
    pattern = rf"\bn(?:\s*,\s*\w+)*{_LE}(\d+)(?:\^(\d+))?"
    for match in re.finditer(pattern, _public_text(problem)):
        base, power = int(match.group(1)), match.group(2)
        best = max(best, float(base) ** int(power) if power else float(base))
    return best
