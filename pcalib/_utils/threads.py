r"""How many threads pcalib's passes may use: the process's cores and BLAS's threads.

:func:`cores` counts the cores this process may run on, at most its cgroup CPU
quota (OpenBLAS counts the cores it may run on, not a container's quota).
:func:`limited_blas` limits the BLAS libraries (NumPy's and SciPy's) to one thread
while pcalib runs its own threads, each with one BLAS thread: the passes of
:func:`pcalib._linalg.moments.shifted_gram`, the sparse products of
:meth:`pcalib._inputs.sparse.SparseMatrix.parallel` and Dask's threads scheduler.
Without threadpoolctl (an optional extra) BLAS cannot be limited and keeps its
own threads.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["blas_threads", "cores", "limited_blas"]


@functools.cache
def _blas() -> Any:
    """threadpoolctl's controller of the BLAS libraries loaded (NumPy's and SciPy's), or
    None without threadpoolctl (the optional ``threads`` extra: without it the
    passes run on one thread with BLAS's own threads, only slower)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController().select(user_api="blas")


def _blas_here() -> Any:
    """:func:`_blas`'s controller when the calling thread may change BLAS's thread count
    (the main thread: see :func:`limited_blas`), else None."""
    return _blas() if threading.current_thread() is threading.main_thread() else None


def blas_threads() -> int:
    """The number of threads the BLAS libraries currently use (the largest of them);
    1 if they cannot be limited (no threadpoolctl, or not on the main thread)."""
    controller = _blas_here()
    if controller is None:
        return 1
    return max((lib.num_threads for lib in controller.lib_controllers), default=1)


@contextlib.contextmanager
def limited_blas() -> Iterator[None]:
    """Context: BLAS limited to one thread, process-wide, while it is open; only on the
    main thread, and nothing without threadpoolctl. (OpenBLAS does not take a change
    of its thread count made on another thread: measured, a limit set on the main
    thread and restored from a worker thread stayed in force.)"""
    controller = _blas_here()
    if controller is None:
        yield
        return
    with controller.limit(limits=1):
        yield


def cores() -> int:
    """The number of CPU cores this process may use: those it may run on, at most its
    cgroup CPU quota (a container started with ``--cpus 2`` on a 64-core host gets 2;
    :func:`_cgroup_cpu_limit`)."""
    try:
        count = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        count = os.cpu_count() or 1
    limit = _cgroup_cpu_limit()
    return max(1, min(count, limit)) if limit is not None else count


def _cgroup_cpu_limit(root: str = "/sys/fs/cgroup", membership: str = "/proc/self/cgroup") -> int | None:
    """The CPU quota of this process's cgroup in whole cores (rounded up), or None
    without one: cgroup v1 ``cpu.cfs_quota_us / cpu.cfs_period_us`` (quota -1: none),
    then cgroup v2 ``cpu.max`` ("max" or "quota period") of the group named in
    `membership` (the files Dask's ``dask.system.cpu_count`` reads)."""
    for directory in ("cpu", "cpu,cpuacct", "cpuacct,cpu"):
        try:
            with open(f"{root}/{directory}/cpu.cfs_quota_us") as quota_file:
                quota = int(quota_file.read())
            with open(f"{root}/{directory}/cpu.cfs_period_us") as period_file:
                period = int(period_file.read())
        except (OSError, ValueError):
            continue
        return -(-quota // period) if quota > 0 and period > 0 else None
    try:
        with open(membership) as groups:
            group = groups.read().strip().split(":")[-1].rstrip("/")
        with open(f"{root}{group}/cpu.max") as limit_file:
            quota_text, period_text = limit_file.read().split()
    except (OSError, ValueError):
        return None
    if quota_text == "max" or int(period_text) <= 0:
        return None
    return -(-int(quota_text) // int(period_text))
