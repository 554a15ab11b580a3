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
- a user namespace of its own (`unshare`, `clone` with CLONE_NEWUSER, `clone3`, `setns`) and the mount
  calls (`mount`, `fsopen`, `fsmount`, `open_tree`, ...): inside a new user namespace an answer may mount a
  tmpfs, whose pages no rlimit counts and the OOM killer pins on no process: 4 GiB of it held the host's
  memory under a 256 MiB RLIMIT_AS, through `/usr/bin/unshare -rm` from an answer that passed its tests.

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
                            "keyctl": 250, "memfd_create": 319, "memfd_secret": 447,
                            "unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155},
               {"clone": 56, "clone3": 435}),
    "aarch64": (0xC00000B7, {"shmget": 194, "semget": 190, "msgget": 186, "add_key": 217, "request_key": 218,
                             "keyctl": 219, "memfd_create": 279, "memfd_secret": 447,
                             "unshare": 97, "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41},
                {"clone": 220, "clone3": 435}),
}
# the mount API's newer calls have one number on every architecture
for _arch in _ARCHES.values():
    _arch[1].update({"open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
                     "fspick": 433, "mount_setattr": 442})
_ARCHES["amd64"], _ARCHES["arm64"] = _ARCHES["x86_64"], _ARCHES["aarch64"]

REFUSED = tuple(_ARCHES["x86_64"][1])
"""The names of the calls the filter refuses (EPERM)."""
CLONE_NEWUSER = 0x10000000
"""clone() with this flag is refused (EPERM); clone3() answers ENOSYS, its flags being behind a pointer the
filter cannot read, and the C library falls back to clone() for its threads and spawns."""

# classic BPF: struct sock_filter {u16 code; u8 jt; u8 jf; u32 k}, over struct seccomp_data
# {int nr; u32 arch; u64 ip; u64 args[6]} (little-endian: args[0]'s low word at offset 16)
_LD_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW, _KILL_PROCESS, _ERRNO_EPERM, _ERRNO_ENOSYS = 0x7FFF0000, 0x80000000, 0x00050000 | 1, 0x00050000 | 38
_X32_BIT = 0x40000000


def filter_program(machine: str | None = None) -> bytes | None:
    """The compiled filter (the bytes `bwrap --seccomp` reads) for `machine` (default: this one's), or
    None where the table has no numbers for it."""
    arch = _ARCHES.get((machine or platform.machine()).lower())
    if arch is None:
        return None
    audit_arch, numbers, clones = arch
    # (code, label jumped to when true, label when false, k); None: the next instruction
    prog: list[tuple] = [(_LD_ABS, None, None, 4),                      # A = arch
                         (_JEQ, None, "kill", audit_arch),              # another ABI: kill
                         (_LD_ABS, None, None, 0),                      # A = nr
                         (_JGE, "eperm", None, _X32_BIT)]               # x32 numbers: refuse
    prog += [(_JEQ, "eperm", None, nr) for nr in sorted(set(numbers.values()))]
    prog += [(_JEQ, "enosys", None, clones["clone3"]), (_JEQ, "clone", None, clones["clone"]),
             (_RET, None, None, _ALLOW)]
    labels = {"clone": len(prog)}
    prog += [(_LD_ABS, None, None, 16),                                 # A = clone's flags
             (_JSET, "eperm", None, CLONE_NEWUSER), (_RET, None, None, _ALLOW)]
    for name, ret in (("eperm", _ERRNO_EPERM), ("enosys", _ERRNO_ENOSYS), ("kill", _KILL_PROCESS)):
        labels[name] = len(prog)
        prog.append((_RET, None, None, ret))

    def off(pc: int, label: str | None) -> int:
        return 0 if label is None else labels[label] - pc - 1
    return b"".join(struct.pack("=HBBI", code, off(pc, jt), off(pc, jf), k)
                    for pc, (code, jt, jf, k) in enumerate(prog))
