"""A seccomp filter for the process that runs learner code (Linux x86_64): no sockets, no new processes, no
programs, no file writes or deletions, no signals to other processes, no raising of its own limits.

Written as a classic BPF program installed with ``prctl`` through ctypes, so it needs no package and no libseccomp.
A deny list of system calls on top of the sandbox's whitelist (mha/check/sandbox.py) and the resource limits
(mha/check/worker.py): it only has to hold if learner code ever got out of the restricted language. Denied calls
fail with EPERM (``clone3`` with ENOSYS, so a thread library falls back to ``clone``, which is allowed only for
threads); a system call of another ABI (i386, x32) kills the process.
"""
from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
AUDIT_ARCH_X86_64 = 0xC000003E
X32_BIT = 0x40000000
RET_ALLOW = 0x7FFF0000
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
LD_ABS_W, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
CLONE_THREAD = 0x00010000
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

# x86_64 numbers (arch/x86/entry/syscalls/syscall_64.tbl)
DENIED = {
    "socket": 41, "connect": 42, "accept": 43, "bind": 49, "listen": 50, "socketpair": 53, "accept4": 288,
    "fork": 57, "vfork": 58, "execve": 59, "execveat": 322, "ptrace": 101, "process_vm_readv": 310,
    "process_vm_writev": 311, "creat": 85, "truncate": 76, "ftruncate": 77, "rename": 82, "renameat": 264,
    "renameat2": 316, "mkdir": 83, "mkdirat": 258, "rmdir": 84, "link": 86, "linkat": 265, "unlink": 87,
    "unlinkat": 263, "symlink": 88, "symlinkat": 266, "chmod": 90, "fchmod": 91, "fchmodat": 268, "chown": 92,
    "fchown": 93, "lchown": 94, "fchownat": 260, "mknod": 133, "mknodat": 259, "setrlimit": 160, "mount": 165,
    "umount2": 166, "chroot": 161, "pivot_root": 155, "unshare": 272, "setns": 308, "bpf": 321,
    "perf_event_open": 298, "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "memfd_create": 319, "open_by_handle_at": 304, "init_module": 175,
    "finit_module": 313, "delete_module": 176, "kexec_load": 246, "keyctl": 250, "add_key": 248,
    "request_key": 249, "tkill": 200,
}
NR_CLONE, NR_CLONE3, NR_OPEN, NR_OPENAT, NR_KILL, NR_TGKILL, NR_PRLIMIT64 = 56, 435, 2, 257, 62, 234, 302


def _ins(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _arg_lo(i: int) -> int:
    return 16 + 8 * i  # offsetof(struct seccomp_data, args[i]), low half on little-endian


def program(pid: int) -> bytes:
    """The filter as BPF instructions; ``pid`` is the only process ``kill``/``tgkill`` may signal (itself)."""
    eperm, enosys = RET_ERRNO | errno.EPERM, RET_ERRNO | errno.ENOSYS
    out = [_ins(LD_ABS_W, 4), _ins(JEQ, AUDIT_ARCH_X86_64, 1, 0), _ins(RET, RET_KILL_PROCESS),
           _ins(LD_ABS_W, 0), _ins(JGE, X32_BIT, 0, 1), _ins(RET, RET_KILL_PROCESS)]
    nr = _ins(LD_ABS_W, 0)
    for number in sorted(DENIED.values()):
        out += [nr, _ins(JEQ, number, 0, 1), _ins(RET, eperm)]
    out += [nr, _ins(JEQ, NR_CLONE3, 0, 1), _ins(RET, enosys)]
    # clone: threads only (CLONE_THREAD set), never a new process
    out += [nr, _ins(JEQ, NR_CLONE, 0, 4), _ins(LD_ABS_W, _arg_lo(0)), _ins(JSET, CLONE_THREAD, 0, 1),
            _ins(RET, RET_ALLOW), _ins(RET, eperm)]
    # open / openat: reading only
    for number, arg in ((NR_OPEN, 1), (NR_OPENAT, 2)):
        out += [nr, _ins(JEQ, number, 0, 4), _ins(LD_ABS_W, _arg_lo(arg)), _ins(JSET, WRITE_FLAGS, 1, 0),
                _ins(RET, RET_ALLOW), _ins(RET, eperm)]
    # kill(pid, ...), tgkill(tgid, ...): only this process
    for number in (NR_KILL, NR_TGKILL):
        out += [nr, _ins(JEQ, number, 0, 4), _ins(LD_ABS_W, _arg_lo(0)), _ins(JEQ, pid, 0, 1),
                _ins(RET, RET_ALLOW), _ins(RET, eperm)]
    # prlimit64(pid, resource, new, old): reading limits only (new == NULL)
    out += [nr, _ins(JEQ, NR_PRLIMIT64, 0, 6), _ins(LD_ABS_W, _arg_lo(2)), _ins(JEQ, 0, 0, 3),
            _ins(LD_ABS_W, _arg_lo(2) + 4), _ins(JEQ, 0, 0, 1), _ins(RET, RET_ALLOW), _ins(RET, eperm)]
    out.append(_ins(RET, RET_ALLOW))
    return b"".join(out)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def available() -> str | None:
    """None if the filter can be installed here, else why not (for the worker's log)."""
    if platform.system() != "Linux":
        return f"seccomp: not on Linux ({platform.system()}): no system-call filter, limits and sandbox only"
    if platform.machine() not in ("x86_64", "AMD64"):
        return f"seccomp: filter written for x86_64, not {platform.machine()}: limits and sandbox only"
    return None


def install() -> None:
    """Install the filter in this process (irreversible; inherited by threads). Raises OSError on failure."""
    why = available()
    if why:
        raise OSError(why)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    code = program(os.getpid())
    buf = ctypes.create_string_buffer(code, len(code))
    prog = _SockFprog(len(code) // 8, ctypes.cast(buf, ctypes.c_void_p))
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
