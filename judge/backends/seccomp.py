"""The seccomp filter every bubblewrap run gets: a classic-BPF program assembled here.

Hand-assembled rather than built with libseccomp so that a fresh clone needs no extra
package: the program is a short list of ``struct sock_filter`` (8 bytes each) that bwrap
reads from a file descriptor (``--seccomp FD``) and installs just before it executes the
candidate's command. What it does, in order:

1. A syscall made under another ABI than the host's (``int 0x80`` i386 calls on x86_64, the
   x32 ABI) fails with ENOSYS: a filter that only checks numbers is bypassed through them.
2. Kernel attack surface a judged program never needs fails with EPERM: tracing other
   processes, mounting, namespaces, keyrings, eBPF, userfaultfd, perf, io_uring, modules,
   clocks, file handles, the new mount API (Docker's default profile denies the same).
3. ``clone`` with any namespace flag fails with EPERM; ``clone3`` fails with ENOSYS, because
   its flags sit in memory a filter cannot read, and glibc then falls back to ``clone``.
4. Everything else is allowed.
"""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass

# linux/audit.h
AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_AARCH64 = 0xC00000B7
X32_SYSCALL_BIT = 0x40000000

# linux/filter.h, linux/seccomp.h
_LD_W_ABS = 0x20
_JEQ = 0x15
_JGE = 0x35
_JSET = 0x45
_RET = 0x06
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_NR, _ARCH, _ARG0_LOW = 0, 4, 16

# CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET (CLONE_NEWTIME is
# 0x80, inside clone's exit-signal byte, so it can only be asked for through clone3/unshare).
CLONE_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 \
    | 0x20000000 | 0x40000000

DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
    "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
    "keyctl", "add_key", "request_key", "bpf", "userfaultfd", "perf_event_open",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "syslog", "vhangup",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "sethostname", "setdomainname", "open_by_handle_at", "name_to_handle_at",
    "lookup_dcookie", "fanotify_init", "nfsservctl",
    # x86 only
    "iopl", "ioperm", "modify_ldt", "uselib", "_sysctl",
    "create_module", "get_kernel_syms", "query_module",
)

# From linux/arch/x86/entry/syscalls/syscall_64.tbl and include/uapi/asm-generic/unistd.h
# (checked against this machine's <asm/unistd_64.h> and <asm-generic/unistd.h>).
_X86_64 = {
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "pidfd_getfd": 438,
    "kcmp": 312, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161,
    "unshare": 272, "setns": 308, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
    "fspick": 433, "move_mount": 429, "open_tree": 428, "mount_setattr": 442, "keyctl": 250,
    "add_key": 248, "request_key": 249, "bpf": 321, "userfaultfd": 323,
    "perf_event_open": 298, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "kexec_load": 246, "kexec_file_load": 320, "init_module": 175,
    "finit_module": 313, "delete_module": 176, "reboot": 169, "swapon": 167, "swapoff": 168,
    "acct": 163, "quotactl": 179, "quotactl_fd": 443, "syslog": 103, "vhangup": 153,
    "settimeofday": 164, "clock_settime": 227, "clock_adjtime": 305, "adjtimex": 159,
    "sethostname": 170, "setdomainname": 171, "open_by_handle_at": 304,
    "name_to_handle_at": 303, "lookup_dcookie": 212, "fanotify_init": 300,
    "nfsservctl": 180, "iopl": 172, "ioperm": 173, "modify_ldt": 154, "uselib": 134,
    "_sysctl": 156, "create_module": 174, "get_kernel_syms": 177, "query_module": 178,
    "clone": 56, "clone3": 435,
}
_AARCH64 = {
    "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "pidfd_getfd": 438,
    "kcmp": 272, "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "unshare": 97,
    "setns": 268, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "move_mount": 429, "open_tree": 428, "mount_setattr": 442, "keyctl": 219, "add_key": 217,
    "request_key": 218, "bpf": 280, "userfaultfd": 282, "perf_event_open": 241,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "kexec_load": 104, "kexec_file_load": 294, "init_module": 105, "finit_module": 273,
    "delete_module": 106, "reboot": 142, "swapon": 224, "swapoff": 225, "acct": 89,
    "quotactl": 60, "quotactl_fd": 443, "syslog": 116, "vhangup": 58, "settimeofday": 170,
    "clock_settime": 112, "clock_adjtime": 266, "adjtimex": 171, "sethostname": 161,
    "setdomainname": 162, "open_by_handle_at": 265, "name_to_handle_at": 264,
    "lookup_dcookie": 18, "fanotify_init": 262, "nfsservctl": 42, "clone": 220, "clone3": 435,
}


@dataclass(frozen=True)
class Arch:
    audit: int
    numbers: dict[str, int]
    x32: bool  # whether syscall numbers with the x32 bit set must be refused


ARCHES = {"x86_64": Arch(AUDIT_ARCH_X86_64, _X86_64, True),
          "aarch64": Arch(AUDIT_ARCH_AARCH64, _AARCH64, False)}


class SeccompUnsupported(RuntimeError):
    pass


def _ins(code: int, k: int, jt: int | str = 0, jf: int | str = 0) -> tuple:
    return (code, jt, jf, k)


def _assemble(program: list[tuple | str]) -> bytes:
    """Strings are labels; a jump names a label and becomes a forward offset (0..255)."""
    labels: dict[str, int] = {}
    code: list[tuple] = []
    for item in program:
        if isinstance(item, str):
            labels[item] = len(code)
        else:
            code.append(item)
    out = bytearray()
    for index, (op, jt, jf, k) in enumerate(code):
        offsets = []
        for target in (jt, jf):
            offset = labels[target] - index - 1 if isinstance(target, str) else target
            if not 0 <= offset <= 255:
                raise ValueError(f"BPF jump out of range at {index}: {offset}")
            offsets.append(offset)
        out += struct.pack("=HBBI", op, offsets[0], offsets[1], k)
    return bytes(out)


def filter_program(machine: str | None = None) -> bytes:
    """The BPF program for ``machine`` (default: this host), ready for ``bwrap --seccomp``."""
    machine = machine or platform.machine()
    arch = ARCHES.get(machine)
    if arch is None:
        raise SeccompUnsupported(f"no seccomp filter for the {machine} architecture "
                                 f"(supported: {', '.join(ARCHES)})")
    program: list[tuple | str] = [
        _ins(_LD_W_ABS, _ARCH),
        _ins(_JEQ, arch.audit, 0, "nosys"),
        _ins(_LD_W_ABS, _NR),
    ]
    if arch.x32:
        program.append(_ins(_JGE, X32_SYSCALL_BIT, "nosys", 0))
    for name in DENIED:
        if name in arch.numbers:
            program.append(_ins(_JEQ, arch.numbers[name], "eperm", 0))
    program += [
        _ins(_JEQ, arch.numbers["clone3"], "nosys", 0),
        _ins(_JEQ, arch.numbers["clone"], 0, "allow"),
        _ins(_LD_W_ABS, _ARG0_LOW),
        _ins(_JSET, CLONE_NAMESPACE_FLAGS, "eperm", "allow"),
        "allow", _ins(_RET, RET_ALLOW),
        "eperm", _ins(_RET, RET_ERRNO | errno.EPERM),
        "nosys", _ins(_RET, RET_ERRNO | errno.ENOSYS),
    ]
    return _assemble(program)
