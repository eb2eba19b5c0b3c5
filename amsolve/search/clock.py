"""The clocks compiled search code reads, so that a kernel stops at a deadline itself: the wall
clock, and the thread's own CPU time, which a stall of the machine (the thread not running) does
not move."""

from __future__ import annotations

import time
from collections.abc import Callable

from numba import njit, objmode


def clock_of(cpu: bool) -> Callable[[], float]:
    """The clock `now_on(cpu)` reads, for Python code: the thread's CPU time or the wall clock."""
    return time.thread_time if cpu else time.perf_counter


@njit(cache=True)
def now_on(cpu: bool) -> float:
    """`time.thread_time()` with `cpu`, else `time.perf_counter()`, from inside a compiled function
    (about 0.6 µs a call). Its block of Python code is compiled when it first runs in each compiled
    function that reads it, in each process (about 0.1 s): `amsolve.solver.warm_up` makes every
    such read happen once (a descent reads the clock after its first examination for that too)."""
    with objmode(seconds="float64"):
        seconds = time.thread_time() if cpu else time.perf_counter()
    return seconds


@njit(cache=True)
def now() -> float:
    """`time.perf_counter()` from inside a compiled function."""
    return now_on(False)
