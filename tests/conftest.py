"""Shared settings for the library tests."""

import os

import pytest
from hypothesis import HealthCheck, settings

# Deterministic property tests: a fixed derandomized profile, no deadline
# (BLAS timings on a 2-core CI machine are noisy).
settings.register_profile(
    "pcalib",
    derandomize=True,
    deadline=None,
    max_examples=int(os.environ.get("PCALIB_HYPOTHESIS_EXAMPLES", "60")),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.load_profile("pcalib")


def blas_controller():
    """threadpoolctl's controller of NumPy's and SciPy's BLAS libraries (loaded here
    if they were not), or None without threadpoolctl."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    import numpy  # noqa: F401  (each loads its own OpenBLAS)
    import scipy.linalg  # noqa: F401

    return ThreadpoolController().select(user_api="blas")


def pytest_configure(config):
    """In a pytest-xdist worker, BLAS gets the worker's share of the cores.

    Two workers on two cores with two OpenBLAS threads each took 1.3-1.6x the CPU time
    of one thread each (tests/test_eigen.py and test_ch04 in alternation: 25.4-31.2 s
    against 18.7-19.4 s of user time). The limit is made at run time, so a test about
    thread limits lifts it again with the ``all_blas_threads`` fixture; a single
    process (``-n 0``, ``PCALIB_TEST_WORKERS=1``) keeps BLAS's own count.
    """
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    controller = blas_controller() if "PYTEST_XDIST_WORKER" in os.environ else None
    if controller is None or workers < 2 or not controller.lib_controllers:
        return
    share = max(1, len(os.sched_getaffinity(0)) // workers)
    config.pcalib_blas_threads = max(lib.num_threads for lib in controller.lib_controllers)
    if share < config.pcalib_blas_threads:
        config.pcalib_blas_limit = controller.limit(limits=share)


@pytest.fixture
def all_blas_threads(pytestconfig):
    """BLAS with the threads it started with, for the duration of a test about thread
    limits (the xdist workers otherwise run on their share; see pytest_configure)."""
    controller = blas_controller()
    if controller is None or not hasattr(pytestconfig, "pcalib_blas_limit"):
        yield
        return
    with controller.limit(limits=pytestconfig.pcalib_blas_threads):
        yield
