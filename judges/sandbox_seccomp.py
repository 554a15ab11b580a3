"""A seccomp filter for the bubblewrap sandbox (judges/sandbox.py passes it as `bwrap --seccomp FD`):
the system calls that reach memory or state RLIMIT_AS and the private /tmp do not bound, refused
with EPERM; every other call allowed.

- SysV shared memory, message queues and semaphores (`shmget`, `msgget`, `semget`): a segment is
  kernel memory that outlives its mapping. An answer that made 256 MiB segments one at a time,
  filling and detaching each, held 1 GiB of the host's memory under a 300 MiB RLIMIT_AS, and the
  sandbox's own IPC namespace keeps the kernel's limits (shmall about 2^64).
- `memfd_create` and `memfd_secret`: an anonymous file is memory too, one RLIMIT_FSIZE each, as
  many as RLIMIT_NOFILE (40 files of 16 MiB held 640 MiB under a 300 MiB limit).
- the kernel keyring (`add_key`, `request_key`, `keyctl`): a user's keyring is per uid, not per
  namespace, and sandbox uids are reused: a key one answer stored, a later answer read.

Python, numpy and a compiler need none of them. A call made through 32-bit `int 0x80` on x86-64 kills
the process (its numbers differ, and nothing we run uses it); x32's numbers are refused with EPERM. On an
architecture this table does not know, `filter_program()` is None and the sandbox runs without it
(and says so once)."""
from __future__ import annotations

import platform
import struct

# AUDIT_ARCH_* of the native ABI, and the refused calls' numbers there
_ARCHES = {
    "x86_64": (0xC000003E, {"shmget": 29, "semget": 64, "msgget": 68, "add_key": 248, "request_key": 249,
                            "keyctl": 250, "memfd_create": 319, "memfd_secret": 447}),
    "aarch64": (0xC00000B7, {"shmget": 194, "semget": 190, "msgget": 186, "add_key": 217, "request_key": 218,
                             "keyctl": 219, "memfd_create": 279, "memfd_secret": 447}),
}
_ARCHES["amd64"], _ARCHES["arm64"] = _ARCHES["x86_64"], _ARCHES["aarch64"]

REFUSED = tuple(_ARCHES["x86_64"][1])
"""The names of the calls the filter refuses (EPERM)."""

# classic BPF: struct sock_filter {u16 code; u8 jt; u8 jf; u32 k}, over struct seccomp_data {int nr; u32 arch; ...}
_LD_ABS, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06
_ALLOW, _KILL_PROCESS, _ERRNO_EPERM = 0x7FFF0000, 0x80000000, 0x00050000 | 1
_X32_BIT = 0x40000000


def filter_program(machine: str | None = None) -> bytes | None:
    """The compiled filter (the bytes `bwrap --seccomp` reads) for `machine` (default: this one's), or
    None where the table has no numbers for it."""
    arch = _ARCHES.get((machine or platform.machine()).lower())
    if arch is None:
        return None
    audit_arch, numbers = arch
    nrs = sorted(set(numbers.values()))
    deny = 4 + len(nrs) + 1   # index of the EPERM return: after the loads, the x32 check, the matches, ALLOW
    prog = [(_LD_ABS, 0, 0, 4),                         # A = arch
            (_JEQ, 0, deny + 1 - 2, audit_arch),        # another ABI: kill
            (_LD_ABS, 0, 0, 0),                         # A = nr
            (_JGE, deny - 4, 0, _X32_BIT)]              # x32 numbers: refuse
    for i, nr in enumerate(nrs):
        here = 4 + i
        prog.append((_JEQ, deny - here - 1, 0, nr))
    prog += [(_RET, 0, 0, _ALLOW), (_RET, 0, 0, _ERRNO_EPERM), (_RET, 0, 0, _KILL_PROCESS)]
    assert prog[deny][3] == _ERRNO_EPERM
    return b"".join(struct.pack("=HBBI", *ins) for ins in prog)
