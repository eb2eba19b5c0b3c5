"""A one-line description of the machine, for model cards and benchmark tables."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import torch


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
