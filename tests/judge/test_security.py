"""Escape attempts, on each backend (Judge0 CVE-2024-28185/28189, its printenv and
/dev/random bugs): every one must be contained and reported as an ordinary verdict."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from judge.backends.base import SandboxBackend
from judge.models import Verdict
from judge.problems import load_problem
from judge.tiered_run import judge_code

from .conftest import write_problem

pytestmark = pytest.mark.slow


def problem(tmp_path: Path, expected: str = "ok\n", cases: int = 1):
    tests = [("sample", f"{i}\n", expected) for i in range(cases)]
    return load_problem(write_problem(tmp_path, tests, time_ms=500, memory_mb=64))


def sandbox_processes() -> list[str]:
    """Live host processes of the sandbox uids (zombies awaiting their reaper are dead)."""
    deadline = time.monotonic() + 3
    while True:
        found = subprocess.run(["ps", "-u", "65532,65533,65534", "-o", "pid=,stat=,comm="],
                               capture_output=True, text=True).stdout.split("\n")
        alive = [p for p in found if p.strip() and p.split()[1][0] != "Z"]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


async def test_fork_storm_is_bounded(backend: SandboxBackend, tmp_path: Path) -> None:
    code = "#include <unistd.h>\nint main(void){ for(;;) fork(); }\n"
    started = time.monotonic()
    outcome = await judge_code(problem(tmp_path), "c", code, "submit", backend)
    assert outcome.verdict in (Verdict.TLE, Verdict.RE, Verdict.MLE)
    assert time.monotonic() - started < 30
    assert sandbox_processes() == []


async def test_memory_bomb(backend: SandboxBackend, tmp_path: Path) -> None:
    code = ("#include <stdlib.h>\n#include <string.h>\n"
            "int main(void){ for(;;){ char*p=malloc(1<<24); if(p) memset(p,1,1<<24);} }\n")
    outcome = await judge_code(problem(tmp_path), "c", code, "submit", backend)
    assert outcome.verdict == Verdict.MLE


async def test_busy_loop_and_sleep(backend: SandboxBackend, tmp_path: Path) -> None:
    busy = await judge_code(problem(tmp_path), "python", "while True:\n    pass\n", "submit",
                            backend)
    assert busy.verdict == Verdict.TLE
    started = time.monotonic()
    sleeper = await judge_code(problem(tmp_path), "python", "import time\ntime.sleep(60)\n",
                               "submit", backend)
    assert sleeper.verdict == Verdict.TLE
    assert "wall" in (sleeper.cases[0].error or "")
    assert time.monotonic() - started < 20


async def test_output_flood(backend: SandboxBackend, tmp_path: Path) -> None:
    code = ("#include <stdio.h>\n"
            "int main(void){ for(;;) fputs(\"flood flood flood\\n\", stdout); }\n")
    outcome = await judge_code(problem(tmp_path), "c", code, "submit", backend)
    assert outcome.verdict == Verdict.OLE


async def test_no_network_to_host_redis(backend: SandboxBackend, tmp_path: Path,
                                        redis_server) -> None:
    code = (
        "import socket\n"
        "for host in ('127.0.0.1', '10.0.2.2', '172.17.0.1'):\n"
        "    try:\n"
        f"        socket.create_connection((host, {redis_server.port}), timeout=1)\n"
        "        print('connected', host)\n"
        "    except OSError:\n"
        "        pass\n"
        "print('ok')\n")
    outcome = await judge_code(problem(tmp_path), "python", code, "submit", backend)
    assert outcome.verdict == Verdict.AC, outcome.cases[0].actual


async def test_secrets_stay_outside(backend: SandboxBackend, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIVA_SECRET_PROBE", "s3cr3t-value")
    code = (
        "import os\n"
        "leaks = [k + '=' + v for k, v in os.environ.items()]\n"
        "for path in ('/etc/shadow', '/proc/1/environ', '/proc/self/environ',\n"
        "             '/root/.bash_history', '/run/secrets'):\n"
        "    try:\n"
        "        leaks.append(path + ':' + open(path, 'rb').read().decode('latin1'))\n"
        "    except OSError:\n"
        "        pass\n"
        "print('\\n'.join(leaks))\n")
    outcome = await judge_code(problem(tmp_path), "python", code, "submit", backend)
    out = outcome.cases[0].actual or ""
    assert "s3cr3t-value" not in out
    assert "root:" not in out
    assert "REDIS" not in out and "VIVA_" not in out


async def test_cannot_write_outside_private_tmp(backend: SandboxBackend, tmp_path: Path) -> None:
    target = tmp_path / "pwned"
    code = (
        "import os\n"
        f"for path in ('/usr/pwned', '/pwned', 'pwned', '/etc/pwned', {str(target)!r}):\n"
        "    try:\n"
        "        open(path, 'w').write('x')\n"
        "        print('wrote', path)\n"
        "    except OSError:\n"
        "        pass\n"
        "open('/tmp/scratch', 'w').write('fine')\n"
        "print('ok')\n")
    outcome = await judge_code(problem(tmp_path), "python", code, "submit", backend)
    assert outcome.verdict == Verdict.AC, outcome.cases[0].actual
    assert not target.exists()


async def test_planted_symlinks_are_not_followed(backend: SandboxBackend,
                                                 tmp_path: Path) -> None:
    # The candidate plants links under names a careless host might write to after the run.
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched")
    os.chmod(tmp_path, 0o755)
    code = (
        "import os\n"
        "for d in ('.', '/tmp', os.environ.get('HOME', '/tmp')):\n"
        "    for name in ('stdout', 'stderr', 'result.json', 'output', 'main', 'Main.class'):\n"
        "        try:\n"
        f"            os.symlink({str(victim)!r}, os.path.join(d, name))\n"
        "        except OSError:\n"
        "            pass\n"
        "print('ok')\n")
    outcome = await judge_code(problem(tmp_path, cases=2), "python", code, "submit", backend)
    assert outcome.verdict == Verdict.AC
    assert victim.read_text() == "untouched"


async def test_kill_minus_one_does_not_kill_the_judge(backend: SandboxBackend,
                                                      tmp_path: Path) -> None:
    code = "import os, signal\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError:\n    pass\n" \
           "print('ok')\n"
    outcome = await judge_code(problem(tmp_path, cases=3), "python", code, "submit", backend)
    assert outcome.verdict == Verdict.AC
    assert outcome.passed == 3


async def test_compile_time_bombs(backend: SandboxBackend, tmp_path: Path) -> None:
    started = time.monotonic()
    random_include = await judge_code(problem(tmp_path), "c",
                                      '#include "/dev/random"\nint main(void){return 0;}\n',
                                      "submit", backend)
    assert random_include.verdict == Verdict.CE
    templates = ("template<int N> struct F { static const long v = F<N-1>::v + F<N-2>::v; };\n"
                 "template<> struct F<0> { static const long v = 0; };\n"
                 "template<> struct F<1> { static const long v = 1; };\n"
                 "int main() { return (int)F<100000>::v; }\n")
    recursion = await judge_code(problem(tmp_path), "cpp", templates, "submit", backend)
    assert recursion.verdict == Verdict.CE
    assert time.monotonic() - started < 60
