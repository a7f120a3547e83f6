"""Problems as data: loading, validation, generated tests, the public part, and the registry.

A problem is a YAML file: either the contract's minimal file anywhere, or a bank directory
``bank/problems/<id>/problem.yaml`` with optional ``gen.py`` (input generators for large
tests) and ``solutions/`` (a reference used to produce expected outputs of generated tests,
plus the wrong and naive solutions the tests use to prove the problem).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from judge.languages import LANGUAGES
from judge.models import TestCase

Difficulty = Literal["easy", "medium", "hard"]
Execution = Literal["seconds", "long", "manual"]
DEFAULT_TIME_MS = {"seconds": 2000, "long": 30_000, "manual": 2000}
ROOT = Path(__file__).resolve().parent.parent
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: 10x faster
REFERENCE_PYTHON = "/usr/bin/python3"


class ProblemError(ValueError):
    """A problem file is missing or invalid; the message names the file and the fault."""


class Limits(BaseModel):
    time_ms: int | None = Field(default=None, ge=100, le=120_000)
    memory_mb: int = Field(default=256, ge=16, le=4096)
    output_kb: int = Field(default=8192, ge=1, le=65536)


class TestSpec(BaseModel):
    kind: Literal["sample", "hidden", "performance"]
    id: str | None = None
    input: str | None = None
    output: str | None = None
    generate: dict[str, Any] | None = None  # kwargs for gen.py's generate(); output from reference
    note: str | None = None

    @model_validator(mode="after")
    def _input_or_generator(self) -> TestSpec:
        if self.generate is None and (self.input is None or self.output is None):
            raise ValueError("a test needs `input` and `output`, or `generate`")
        return self


# Complexity classes in growth order (agents.complexity.CLASSES is the same; a test checks).
ComplexityClass = Literal["1", "log n", "sqrt n", "n", "n log n", "n^2", "n^3", "2^n"]


class MeasureSpec(BaseModel):
    """How to time a solution at growing n (judge/measure.py): the generator parameters
    that grow with n (the first is the n that is said) and the largest input's parameters;
    the known classes of the bank's reference and naive solutions in that n."""

    model_config = {"extra": "forbid"}

    vary: list[str] = Field(min_length=1)
    generate: dict[str, Any]
    var: str = "n"
    reference: ComplexityClass
    naive: ComplexityClass | None = None  # None: not measurable this way (exponential, ...)
    # A solution file whose own class differs from the one its role gives above: a C++
    # reference that sorts where the Python reference hashes ({"reference.cpp": "n log n"}).
    solutions: dict[str, ComplexityClass] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _vary_is_generated(self) -> MeasureSpec:
        missing = [k for k in self.vary if not isinstance(self.generate.get(k), int)]
        if missing:
            raise ValueError(f"measure.vary names {missing}, which measure.generate must "
                             "give as integers")
        return self


class AssessmentPoint(BaseModel):
    id: str
    text: str
    weight: float = 1.0


class Problem(BaseModel):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{1,63}$")
    title: str
    statement: str
    difficulty: Difficulty = "medium"
    mode: Literal["stdio"] = "stdio"
    execution: Execution = "seconds"
    limits: Limits = Field(default_factory=Limits)
    checker: str = "exact"
    tags: list[str] = Field(default_factory=list)
    input_format: str | None = None
    output_format: str | None = None
    constraints: str | None = None
    templates: dict[str, str] = Field(default_factory=dict)
    assessment_points: list[AssessmentPoint] = Field(default_factory=list)
    hints: list[str] = Field(default_factory=list)
    measure: MeasureSpec | None = None
    tests: list[TestSpec]
    source: Path | None = Field(default=None, exclude=True)
    _cache_dir: Path | None = PrivateAttr(default=None)  # set by the registry (settings)

    @property
    def cache_dir(self) -> Path | None:
        """Where generated tests are cached (None: the default under ./var)."""
        return self._cache_dir

    @field_validator("templates")
    @classmethod
    def _known_languages(cls, value: dict[str, str]) -> dict[str, str]:
        unknown = set(value) - set(LANGUAGES)
        if unknown:
            raise ValueError(f"templates for unknown languages: {sorted(unknown)}")
        return value

    @field_validator("assessment_points", mode="before")
    @classmethod
    def _points(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"id": f"p{i + 1}", "text": v} if isinstance(v, str) else v
                    for i, v in enumerate(value)]
        return value

    @model_validator(mode="after")
    def _test_ids(self) -> Problem:
        counters: dict[str, int] = {}
        for test in self.tests:
            counters[test.kind] = counters.get(test.kind, 0) + 1
            if test.id is None:
                prefix = {"sample": "sample", "hidden": "hidden", "performance": "perf"}[test.kind]
                test.id = f"{prefix}-{counters[test.kind]}"
        ids = [t.id for t in self.tests]
        if len(set(ids)) != len(ids):
            raise ValueError("test ids repeat")
        if not self.tests:
            raise ValueError("a problem needs at least one test")
        return self

    @property
    def directory(self) -> Path | None:
        return self.source.parent if self.source else None

    @property
    def time_ms(self) -> int:
        return self.limits.time_ms or DEFAULT_TIME_MS[self.execution]

    def samples(self) -> list[TestSpec]:
        return [t for t in self.tests if t.kind == "sample"]

    def public(self) -> dict[str, Any]:
        """The part a candidate may see: no hidden tests, no assessment points or hints."""
        return {
            "id": self.id, "title": self.title, "statement": self.statement,
            "difficulty": self.difficulty, "mode": self.mode, "execution": self.execution,
            "input_format": self.input_format, "output_format": self.output_format,
            "constraints": self.constraints, "tags": self.tags,
            "limits": {"time_ms": self.time_ms, "memory_mb": self.limits.memory_mb},
            "templates": self.templates,
            "samples": [{"id": t.id, "input": t.input, "output": t.output}
                        for t in self.samples()],
        }

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "difficulty": self.difficulty,
                "tags": self.tags, "execution": self.execution,
                "languages": sorted(self.templates)}


def load_problem(path: Path) -> Problem:
    """Parse and validate one problem file (``problem.yaml`` or a minimal ``*.yaml``)."""
    if path.is_dir():
        path = path / "problem.yaml"
    try:
        raw = yaml.load(path.read_text(), Loader=_LOADER)
    except FileNotFoundError:
        raise ProblemError(f"{path}: no such problem file") from None
    except yaml.YAMLError as exc:
        raise ProblemError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise ProblemError(f"{path}: a problem file must be a mapping")
    try:
        problem = Problem.model_validate({**raw, "source": path})
    except ValidationError as exc:
        errors = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ProblemError(f"{path}: {errors}") from None
    return problem


DEFAULT_CACHE_DIR = ROOT / "var" / "judge-cache"  # settings: under VIVA_DATA_DIR


def _fingerprint(problem: Problem) -> str:
    digest = hashlib.sha256()
    assert problem.source is not None
    for path in (problem.source, problem.source.parent / "gen.py",
                 problem.source.parent / "solutions" / "reference.py"):
        if path.exists():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def generate_input(problem: Problem, params: dict[str, Any]) -> str:
    """The problem's gen.py ``generate(**params)`` (trusted bank code, run in-process)."""
    assert problem.directory is not None
    gen_path = problem.directory / "gen.py"
    spec = importlib.util.spec_from_file_location(f"viva_gen_{problem.id}", gen_path)
    if spec is None or spec.loader is None:
        raise ProblemError(f"{problem.id}: generated tests need {gen_path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = module.generate(**params)
    if not isinstance(text, str):
        raise ProblemError(f"{problem.id}: gen.py generate() must return a str")
    return text


def _reference_output(problem: Problem, data: str) -> str:
    # The bank's own reference (trusted, authored with the problem), not candidate code.
    assert problem.directory is not None
    reference = problem.directory / "solutions" / "reference.py"
    if not reference.exists():
        raise ProblemError(f"{problem.id}: generated tests need solutions/reference.py")
    done = subprocess.run([REFERENCE_PYTHON, str(reference)], input=data.encode(),
                          capture_output=True, timeout=120, env={"PATH": "/usr/bin:/bin"})
    if done.returncode != 0:
        raise ProblemError(f"{problem.id}: reference failed: {done.stderr.decode()[-500:]}")
    return done.stdout.decode()


def resolve_tests(problem: Problem) -> list[TestCase]:
    """Every test with concrete input and expected output (generated ones cached on disk)."""
    if all(t.generate is None for t in problem.tests):
        return [TestCase(id=t.id or "", kind=t.kind, input=t.input or "", output=t.output or "",
                         note=t.note) for t in problem.tests]
    cache = (problem.cache_dir or DEFAULT_CACHE_DIR) / f"{problem.id}-{_fingerprint(problem)}.json"
    if cache.exists():
        return [TestCase.model_validate(t) for t in json.loads(cache.read_text())]
    cases = []
    for t in problem.tests:
        if t.generate is None:
            data, expected = t.input or "", t.output or ""
        else:
            data = generate_input(problem, t.generate)
            expected = _reference_output(problem, data)
        cases.append(TestCase(id=t.id or "", kind=t.kind, input=data, output=expected,
                              note=t.note))
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps([c.model_dump() for c in cases]))
    tmp.replace(cache)
    return cases


def bank_problem_paths(bank_dir: Path) -> list[Path]:
    base = bank_dir / "problems" if (bank_dir / "problems").is_dir() else bank_dir
    if base.is_file():
        return [base]
    if (base / "problem.yaml").exists():
        return [base / "problem.yaml"]
    return sorted([*base.glob("*/problem.yaml"), *base.glob("*.yaml")])


def bank_rules(problem: Problem) -> list[str]:
    """What a bank problem must have beyond the minimal file."""
    errors = []
    kinds = [t.kind for t in problem.tests]
    if kinds.count("sample") < 3:
        errors.append("needs at least 3 sample tests")
    if kinds.count("hidden") < 10:
        errors.append("needs at least 10 hidden tests")
    if kinds.count("performance") < 1:
        errors.append("needs at least 1 performance test")
    missing = [lang for lang in LANGUAGES if lang not in problem.templates]
    if missing:
        errors.append(f"missing templates: {', '.join(missing)}")
    if not problem.assessment_points:
        errors.append("needs assessment points")
    if len(problem.hints) < 2:
        errors.append("needs a hint ladder (`hints`: at least 2, from a nudge to the idea)")
    if problem.measure is None:
        errors.append("needs a `measure` block (generator parameters that grow with n, and "
                      "the reference's complexity class)")
    elif problem.directory is not None and not (problem.directory / "gen.py").exists():
        errors.append("`measure` needs gen.py")
    for t in problem.samples():
        if t.generate is not None:
            errors.append(f"sample {t.id} must be written out, not generated")
    if any(t.generate for t in problem.tests) and problem.directory is not None:
        for needed in ("gen.py", "solutions/reference.py"):
            if not (problem.directory / needed).exists():
                errors.append(f"generated tests need {needed}")
    if problem.source is not None and problem.source.name == "problem.yaml" \
            and problem.source.parent.name != problem.id:
        errors.append(f"directory name {problem.source.parent.name!r} differs from id")
    return errors


def validate_problem_files(bank_dir: Path) -> list[str]:
    """Check every problem file under ``bank_dir``; returns error messages (empty = valid)."""
    errors: list[str] = []
    seen: dict[str, Path] = {}
    paths = bank_problem_paths(bank_dir)
    if not paths:
        return [f"{bank_dir}: no problem files found"]
    for path in paths:
        try:
            problem = load_problem(path)
        except ProblemError as exc:
            errors.append(str(exc))
            continue
        if problem.id in seen:
            errors.append(f"{path}: id {problem.id!r} also used by {seen[problem.id]}")
        seen[problem.id] = path
        errors.extend(f"{path}: {message}" for message in bank_rules(problem))
    return errors


class ProblemRegistry:
    """The bank's problems by id, loaded once; ``find`` also accepts a path to a file."""

    def __init__(self, problems: dict[str, Problem]):
        self.problems = problems

    @classmethod
    def from_bank(cls, bank_dir: Path, cache_dir: Path | None = None) -> ProblemRegistry:
        problems: dict[str, Problem] = {}
        for path in bank_problem_paths(bank_dir) if bank_dir.exists() else []:
            problem = load_problem(path)
            problem._cache_dir = cache_dir
            problems[problem.id] = problem
        return cls(problems)

    def get(self, problem_id: str) -> Problem | None:
        return self.problems.get(problem_id)

    def find(self, ref: str) -> Problem:
        """A bank id, or a path to a problem file or directory."""
        if ref in self.problems:
            return self.problems[ref]
        path = Path(ref)
        if path.exists():
            return load_problem(path)
        raise ProblemError(f"no problem {ref!r}: not a bank id and not a file")

    def summaries(self) -> list[dict[str, Any]]:
        return [p.summary() for p in sorted(self.problems.values(), key=lambda p: p.id)]


def default_bank_dir() -> Path:
    """The bank shipped with the code (settings: VIVA_BANK_DIR)."""
    return ROOT / "bank"
