"""The docker-compose deployment as a load-bench target: nginx in front of two app processes.

``viva bench load --compose`` builds the images if needed (scripts/setup-compose.sh, cached
by content hash), brings the stack up under a unique project name with Redis also published
on a loopback port through a ``bench`` network of its own (the stack's ``back`` network is
internal, so nothing on it can be published; the bench reads ``INFO clients`` and writes
outside events, with the stack's Redis password), waits until
both app processes answer through the proxy, and removes everything (``down -v``) after.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cli() -> list[str]:
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    raise SystemExit("viva bench load --compose: no docker-compose CLI "
                     "(scripts/setup-system.sh installs Debian's)")


@contextlib.contextmanager
def compose_stack(ready_timeout_s: float = 180) -> Iterator[tuple[list[str], str]]:
    """Yield ([proxy URL], Redis URL) of a fresh stack; tear it down on exit."""
    cli = _cli()
    built = subprocess.run(["bash", str(ROOT / "scripts" / "setup-compose.sh")],
                           capture_output=True, text=True)
    match = re.search(r"images ready: .*viva-app:([0-9a-f]{12})", built.stdout)
    if match is None:
        raise SystemExit(f"viva bench load --compose: images not built:\n{built.stdout[-2000:]}"
                         f"{built.stderr[-2000:]}")
    http_port, redis_port = _free_port(), _free_port()
    project = "vivabench" + uuid.uuid4().hex[:8]
    env = {**os.environ, "VIVA_APP_IMAGE": f"viva-app:{match.group(1)}",
           "VIVA_HTTP_PORT": str(http_port),
           "VIVA_REVIEWER_TOKEN": os.environ.setdefault("VIVA_REVIEWER_TOKEN", uuid.uuid4().hex),
           "VIVA_REDIS_PASSWORD": os.environ.setdefault("VIVA_REDIS_PASSWORD", uuid.uuid4().hex)}
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as override:
        override.write('version: "2.4"\nservices:\n  redis:\n'
                       '    networks: [back, bench]\n'
                       f'    ports: ["127.0.0.1:{redis_port}:6379"]\n'
                       'networks:\n  bench: {}\n')
    cmd = [*cli, "-p", project, "-f", str(ROOT / "docker-compose.yml"), "-f", override.name]
    base = f"http://127.0.0.1:{http_port}"
    try:
        subprocess.run([*cmd, "up", "-d", "--no-build"], env=env, check=True,
                       capture_output=True, cwd=ROOT)
        seen: set[str] = set()
        deadline = time.monotonic() + ready_timeout_s
        while len(seen) < 2:
            if time.monotonic() > deadline:
                raise SystemExit(f"viva bench load --compose: stack not ready ({seen})")
            with contextlib.suppress(httpx.HTTPError):
                r = httpx.get(f"{base}/healthz", timeout=5)
                if r.status_code == 200:
                    seen.add(r.headers.get("x-viva-upstream", ""))
            time.sleep(0.5)
        yield [base], f"redis://:{env['VIVA_REDIS_PASSWORD']}@127.0.0.1:{redis_port}/0"
    finally:
        subprocess.run([*cmd, "down", "-v", "--remove-orphans", "-t", "5"], env=env,
                       capture_output=True, cwd=ROOT)
        os.unlink(override.name)
