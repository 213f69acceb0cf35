"""Work for worker-process tests, in a module that imports nothing heavy (a worker imports it to unpickle)."""

from __future__ import annotations


def allocate(gib: float) -> int:
    """Hold `gib` GiB at once (a document whose decoding runs away)."""
    return len(bytearray(int(gib * 2**30)))


def vm_data_mib(_: object = None) -> int:
    """This process's data segment and private mappings (what RLIMIT_DATA counts), in MiB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmData:"):
                return int(line.split()[1]) // 1024
    return -1
