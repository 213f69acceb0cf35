"""Arrow's buffers from the C library's allocator, which hands freed pages back (issue 56).

pyarrow's default pool here is mimalloc, which keeps the pages of freed buffers for later buffers: after the
extract stage's tables (700,000 rows for 77 papers) had been written and dropped, the run's own process kept
~60 MB it no longer used through the judge stage and to the end, and each worker kept the high-water mark of its
largest document's tables. With glibc's malloc, large buffers are returned to the system when freed, and the
rest by the ``malloc_trim`` a worker calls after each document (`tasks.engine.isolation.release_heap`).

A pool named in ``ARROW_DEFAULT_MEMORY_POOL`` is left as it is: the user's choice.
"""

from __future__ import annotations

import os
import sys

ENV = "ARROW_DEFAULT_MEMORY_POOL"


def use_system_allocator() -> None:
    """Arrow allocates with the system allocator in this process and the processes it starts from now on."""
    if os.environ.get(ENV):
        return
    os.environ[ENV] = "system"  # read by pyarrow as it is imported: here, if not yet, and in the processes started
    pa = sys.modules.get("pyarrow")  # already imported: its pool is chosen; the next allocations take this one
    if pa is not None:
        pa.set_memory_pool(pa.system_memory_pool())
