"""Per-run cgroups (v1 or v2): memory and pids limits, peak memory, CPU time, OOM, kill-all.

v1 (this machine) has separate hierarchies; v2 has one tree whose parent must delegate the
controllers. Both are created by root and the child joins before it drops privileges.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
GROUP = "viva-judge"


class CgroupUnavailable(RuntimeError):
    pass


def _write(path: Path, value: str) -> None:
    with open(path, "w") as handle:
        handle.write(value)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def detect_version(root: Path = ROOT) -> int | None:
    """1 or 2 when the memory and pids controllers are writable, else None."""
    if (root / "memory" / "memory.limit_in_bytes").exists() and (root / "pids").is_dir():
        return 1 if os.access(root / "memory", os.W_OK) else None
    controllers = _read(root / "cgroup.controllers").split()
    if "memory" in controllers and "pids" in controllers and os.access(root, os.W_OK):
        return 2
    return None


@dataclass
class RunCgroup:
    """One cgroup per sandboxed run. Create, join from the child, read figures, destroy."""

    memory_bytes: int
    pids: int
    version: int
    name: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    dirs: list[Path] = field(default_factory=list)

    @classmethod
    def create(cls, memory_bytes: int, pids: int, root: Path = ROOT) -> RunCgroup:
        version = detect_version(root)
        if version is None:
            raise CgroupUnavailable(
                "no writable memory+pids cgroups (bubblewrap judging needs root and cgroups)")
        group = cls(memory_bytes=memory_bytes, pids=pids, version=version)
        try:
            group._setup(root)
        except OSError as exc:
            group.destroy()
            raise CgroupUnavailable(f"cannot set up a cgroup: {exc}") from exc
        return group

    def _setup(self, root: Path) -> None:
        if self.version == 1:
            for ctrl in ("memory", "pids", "cpuacct"):
                parent = root / ctrl / GROUP
                parent.mkdir(exist_ok=True)
                path = parent / self.name
                path.mkdir()
                self.dirs.append(path)
            mem, pids, _ = self.dirs
            _write(mem / "memory.limit_in_bytes", str(self.memory_bytes))
            swap = mem / "memory.memsw.limit_in_bytes"
            if swap.exists():  # no swap: memory+swap capped at the same figure
                _write(swap, str(self.memory_bytes))
            _write(mem / "memory.swappiness", "0")
            _write(pids / "pids.max", str(self.pids))
        else:
            parent = root / GROUP
            parent.mkdir(exist_ok=True)
            _write(root / "cgroup.subtree_control", "+memory +pids +cpu")
            _write(parent / "cgroup.subtree_control", "+memory +pids +cpu")
            path = parent / self.name
            path.mkdir()
            self.dirs.append(path)
            _write(path / "memory.max", str(self.memory_bytes))
            if (path / "memory.swap.max").exists():
                _write(path / "memory.swap.max", "0")
            _write(path / "pids.max", str(self.pids))

    def procs_files(self) -> list[str]:
        """Files the child writes its pid into (from a pre-exec hook, before dropping root)."""
        return [str(d / "cgroup.procs") for d in self.dirs]

    def peak_memory_kb(self) -> int:
        if self.version == 1:
            raw = _read(self.dirs[0] / "memory.max_usage_in_bytes")
        else:
            raw = _read(self.dirs[0] / "memory.peak")
        return int(raw.strip() or 0) // 1024

    def cpu_ms(self) -> int:
        if self.version == 1:
            return int(_read(self.dirs[2] / "cpuacct.usage").strip() or 0) // 1_000_000
        for line in _read(self.dirs[0] / "cpu.stat").splitlines():
            if line.startswith("usage_usec"):
                return int(line.split()[1]) // 1000
        return 0

    def oom_killed(self) -> bool:
        if self.version == 1:
            text = _read(self.dirs[0] / "memory.oom_control")
            fail = int(_read(self.dirs[0] / "memory.failcnt").strip() or 0)
        else:
            text = _read(self.dirs[0] / "memory.events")
            fail = 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and int(value or 0) > 0:
                return True
        return fail > 0 and self.peak_memory_kb() * 1024 >= self.memory_bytes * 0.98

    def pids_now(self) -> list[int]:
        group = self.dirs[1] if self.version == 1 else self.dirs[0]
        procs = group / "cgroup.procs"
        return [int(p) for p in _read(procs).split()]

    def kill_all(self, attempts: int = 50) -> None:
        """SIGKILL every process still in the group (a fork storm may race us: repeat)."""
        for _ in range(attempts):
            pids = self.pids_now()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.005)

    def destroy(self) -> None:
        self.kill_all()
        for path in self.dirs:
            for _ in range(100):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
