"""The bubblewrap seccomp filter and --disable-userns, probed from candidate code (issue 23).

Each probe calls a denied syscall with harmless arguments that would succeed, or fail with a
different errno, without the filter: PTRACE_TRACEME, unshare(CLONE_NEWUSER), a keyring lookup,
setns(-1) (EBADF), perf_event_open(NULL) (EFAULT), clone3(NULL, 0) (EINVAL)... so only the
filter explains EPERM/ENOSYS for every one. Threads still work (glibc's clone3 → clone).
"""

from __future__ import annotations

import errno
import platform
import struct
import subprocess
from pathlib import Path

import pytest

from judge.backends import seccomp
from judge.backends.base import SandboxBackend
from judge.backends.bubblewrap import bwrap_argv
from judge.languages import EXECUTORS
from judge.models import RunLimits, Verdict
from judge.problems import load_problem
from judge.tiered_run import judge_code

from .conftest import write_problem

PROBE = r"""
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void report(const char *name, long rc) {
    printf("%s %d\n", name, rc == -1 ? errno : 0);
}
#define PROBE(name, ...) \
    do { errno = 0; report(#name, syscall(SYS_##name, __VA_ARGS__)); } while (0)

static void *worker(void *arg) { return arg; }

int main(void) {
    setvbuf(stdout, NULL, _IONBF, 0);
    pid_t me = getpid();
    PROBE(ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0);
    PROBE(process_vm_readv, me, NULL, 0, NULL, 0, 0);
    PROBE(kcmp, me, me, 0, 0, 0);
    PROBE(pidfd_getfd, -1, 0, 0);
    PROBE(unshare, CLONE_NEWUSER);
    PROBE(setns, -1, 0);
    PROBE(mount, "none", "/tmp", "tmpfs", 0, NULL);
    PROBE(umount2, "/tmp", 0);
    PROBE(pivot_root, "/tmp", "/tmp");
    PROBE(chroot, "/tmp");
    PROBE(fsopen, "tmpfs", 0);
    PROBE(open_tree, -100, "/tmp", 0);
    PROBE(keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3 /* session keyring */, 1);
    PROBE(add_key, "user", "viva", "x", 1, -3);
    PROBE(request_key, "user", "viva", NULL, 0);
    PROBE(bpf, 0, NULL, 0);
    PROBE(userfaultfd, 0);
    PROBE(perf_event_open, NULL, 0, -1, -1, 0);
    PROBE(io_uring_setup, 1, NULL);
    PROBE(io_uring_enter, -1, 0, 0, 0, NULL, 0);
    PROBE(io_uring_register, -1, 0, NULL, 0);
    PROBE(init_module, NULL, 0, "");
    PROBE(finit_module, -1, "", 0);
    PROBE(delete_module, "viva", 0);
    PROBE(kexec_load, 0, 0, NULL, 0);
    PROBE(reboot, 0, 0, 0, NULL);
    PROBE(swapon, "/tmp/x", 0);
    PROBE(acct, NULL);
    PROBE(syslog, 3, NULL, 0);
    PROBE(clock_settime, 0, NULL);
    PROBE(name_to_handle_at, -100, ".", NULL, NULL, 0);
    PROBE(open_by_handle_at, -1, NULL, 0);
    PROBE(sethostname, "x", 1);
    /* clone with a namespace flag: refused before any child exists */
    errno = 0;
    long child = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
    if (child == 0) _exit(0);
    if (child > 0) waitpid(child, NULL, 0);
    report("clone_newuser", child);
    PROBE(clone3, NULL, 0);
#if defined(__x86_64__)
    long i386_rc;  /* ptrace through the i386 ABI (int 0x80, eax = 26) */
    __asm__ volatile ("int $0x80" : "=a"(i386_rc) : "a"(26), "b"(0), "c"(0), "d"(0) : "memory");
    printf("i386_ptrace %ld\n", -i386_rc);
    errno = 0;
    report("x32_getpid", syscall(SYS_getpid | 0x40000000));
#endif
    /* what judged programs need still works */
    pthread_t thread;
    printf("thread %d\n", pthread_create(&thread, NULL, worker, NULL) == 0
           && pthread_join(thread, NULL) == 0 ? 0 : 1);
    errno = 0;
    pid_t forked = fork();
    if (forked == 0) _exit(0);
    if (forked > 0) waitpid(forked, NULL, 0);
    report("fork", forked);
    return 0;
}
"""

ENOSYS_EXPECTED = {"clone3", "i386_ptrace", "x32_getpid"}
ALLOWED = {"thread", "fork"}


def _problem(tmp_path: Path):
    return load_problem(write_problem(tmp_path, [("sample", "\n", "ok\n")], time_ms=2000,
                                      memory_mb=64))


@pytest.mark.slow
async def test_denied_syscalls_fail_from_candidate_code(bwrap: SandboxBackend,
                                                        tmp_path: Path) -> None:
    outcome = await judge_code(_problem(tmp_path), "c", PROBE, "submit", bwrap)
    assert outcome.compile.ok, outcome.compile.log
    case = outcome.cases[0]
    assert case.verdict == Verdict.WA, (case.verdict, case.error)  # ran to the end
    results = dict(line.rsplit(" ", 1) for line in (case.actual or "").splitlines())
    expected_names = {"ptrace", "unshare", "keyctl", "bpf", "userfaultfd", "perf_event_open",
                      "io_uring_setup", "mount", "setns", "clone_newuser", "clone3", *ALLOWED}
    assert expected_names <= set(results), results
    for name, err in results.items():
        if name in ALLOWED:
            assert err == "0", f"{name} should still work inside the sandbox: errno {err}"
        elif name in ENOSYS_EXPECTED:
            assert int(err) == errno.ENOSYS, f"{name}: errno {err}, expected ENOSYS"
        else:
            assert int(err) == errno.EPERM, f"{name}: errno {err}, expected EPERM"


UNSHARE_USER = ("import ctypes\n"
                "libc = ctypes.CDLL(None, use_errno=True)\n"
                "print(libc.unshare(0x10000000), ctypes.get_errno())\n")


@pytest.mark.parametrize("disabled", [True, False])
def test_disable_userns_alone_refuses_nested_user_namespaces(tmp_path: Path,
                                                             disabled: bool) -> None:
    # Without the seccomp filter, so this shows what --disable-userns adds by itself
    # (the control run without the flag may create one).
    argv = bwrap_argv(EXECUTORS["python"], tmp_path, ["/usr/bin/python3", "-c", UNSHARE_USER],
                      writable_box=False, limits=RunLimits())
    if not disabled:
        argv.remove("--disable-userns")
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    if disabled:
        assert done.stdout.strip() == f"-1 {errno.ENOSPC}"
    else:
        assert done.stdout.strip() == "0 0"


def test_bwrap_argv_has_the_filter_and_no_userns() -> None:
    argv = bwrap_argv(EXECUTORS["python"], Path("/nonexistent"), ["./main"],
                      writable_box=False, limits=RunLimits(), seccomp_fd=7)
    options = argv[:argv.index("--")]
    assert "--disable-userns" in options
    assert options[options.index("--seccomp") + 1] == "7"


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHES))
def test_program_is_well_formed(machine: str) -> None:
    program = seccomp.filter_program(machine)
    assert len(program) % 8 == 0 and 0 < len(program) // 8 <= 4096
    ops = [struct.unpack("=HBBI", program[i:i + 8]) for i in range(0, len(program), 8)]
    # the first check is the architecture, and the program ends in return instructions
    assert ops[0] == (0x20, 0, 0, 4)
    assert ops[1][3] == seccomp.ARCHES[machine].audit
    assert all(op[0] == 0x06 for op in ops[-3:])
    denied = {seccomp.ARCHES[machine].numbers[n] for n in seccomp.DENIED
              if n in seccomp.ARCHES[machine].numbers}
    compared = {k for code, _, _, k in ops if code == 0x15}
    assert denied <= compared


def test_unknown_architecture_refuses() -> None:
    with pytest.raises(seccomp.SeccompUnsupported, match="riscv64"):
        seccomp.filter_program("riscv64")


def test_host_architecture_is_supported() -> None:
    assert platform.machine() in seccomp.ARCHES
