"""What the machine is (for model cards and benchmark tables) and how much memory it has free."""

from __future__ import annotations

import ctypes
import os
import platform
from pathlib import Path


def cpu_name() -> str:
    """The CPU model as the OS reports it."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def machine_description() -> str:
    """E.g. `AMD EPYC, 2 cores, 2 torch threads, torch 2.13.0+cpu, Linux`."""
    import torch  # the rest of this module serves commands that need no torch

    return (
        f"{cpu_name()}, {os.cpu_count()} cores, {torch.get_num_threads()} torch threads, "
        f"torch {torch.__version__}, {platform.system()}"
    )


def available_memory() -> int | None:
    """Bytes a new allocation can take: Linux MemAvailable, capped by a cgroup v2 limit; None when unknown."""
    meminfo = Path("/proc/meminfo")
    if not meminfo.is_file():
        return None
    available = None
    for line in meminfo.read_text().splitlines():
        if line.startswith("MemAvailable:"):
            available = int(line.split()[1]) * 1024
    limit, used = Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory.current")
    if available is not None and limit.is_file() and used.is_file():
        cap = limit.read_text().strip()
        if cap.isdigit():
            available = min(available, int(cap) - int(used.read_text().strip()))
    return available


MMAP_THRESHOLD_BYTES = 1 << 20
"""Allocations from this size on go to their own memory mappings, returned to the OS when freed."""

LARGE_INSTANCE_CITIES = 500
"""`solve` and `bench` fix the mmap threshold when an instance has this many cities or more."""


def fix_malloc_mmap_threshold() -> bool:
    """Fixes glibc's mmap threshold for this process (True when it did; False off glibc).

    glibc raises the threshold after large blocks are freed, so later blocks of those sizes come
    from the heap, which does not shrink. Multi-start 100 ×8 then peaked at 0.7 GiB at most on 200
    to 575 cities, but in some runs at 1.7 GiB on 657 cities, 2.0 GiB on 783 and 3.4 GiB on 1,000;
    with the threshold fixed at 1 MiB, 1,000 cities peaked at 0.36–0.69 GiB in 13 runs of 13
    (16 and 64 MiB still reached 3.4 GiB; `benchmarks/results/mmap_threshold.md`). The cost:
    blocks from 1 MiB on are mapped afresh each time, which doubled the time of sampling 128 tours
    on 100-city instances, so only instances from `LARGE_INSTANCE_CITIES` on take it.
    """
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    m_mmap_threshold = -3  # from glibc's malloc.h
    return ctypes.CDLL(None).mallopt(m_mmap_threshold, MMAP_THRESHOLD_BYTES) == 1
