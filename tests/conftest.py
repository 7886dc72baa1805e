"""Shared settings for the library tests."""

import os

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
