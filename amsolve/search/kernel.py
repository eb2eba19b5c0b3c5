"""How the search's hot loops are compiled: `kernel`, numba's `njit` without reference counting.

Inside a compiled function numba counts references to every array it holds, and where its
pruning pass cannot prove a count's rise and fall cancel (in a loop with many branches, such as
an LK level's) each use of an array through a helper leaves a pair of calls to the runtime, and
the registers the calls clobber spill to the stack. Compiled without the runtime (numba's
`_nrt=False`), a function holds its arrays as plain pointers: the same machine code, minus
those calls. On one core a kick and the LK search after it cost 46–88 µs against 51–111 µs at
100 cities and 89–103 against 109–140 µs at 1,000, and a 1-tree of the ascent 245–276 against
298–392 µs at 1,000 cities (`benchmarks/kick_cost.py`, `benchmarks/results/kick_cost.md`); the
tours are the same, move for move.

The price is that a kernel may not create an array (an allocation, a copy, a slice assigned
from an array), nor may any function it calls, since callees are compiled with the caller's
flags: numba refuses such code when it compiles it, so a kernel that allocates fails loudly,
never silently. Work arrays are made once, outside, and passed in.
"""

from __future__ import annotations

import numpy as np
from numba import njit

kernel = njit(cache=True, _nrt=False)
"""Decorator for a search kernel that creates no arrays (see the module docstring)."""


@njit(cache=True, inline="always")
def copy_into(target: np.ndarray, source: np.ndarray) -> None:
    """target[:] = source, element by element: in a kernel, assigning an array to a slice allocates."""
    for i in range(source.shape[0]):
        target[i] = source[i]
