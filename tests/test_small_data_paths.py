"""The short cuts of the small-data paths give the general path's bits (issue 35).

``Frame.read`` scales by a Python power of two when the frame has one exponent (and not
at all at exponent 0), ``Frame.of`` finds that exponent with ``math.frexp``,
``center_array`` takes its means by ``np.add.reduce / n``, ``rescale`` returns after
one round-trip comparison, and ``as_numeric_array`` returns a real-dtype ndarray at
once. Each is compared here, bit for bit, with the general route written out in
NumPy (``np.ldexp`` by the array exponent, ``ndarray.mean``, the warnings' two tests),
on data where both apply, and the general route is checked at 1e-300 and 1e300.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pcalib
from pcalib._linalg.units import Frame, center_array, rescale
from pcalib._utils.validation import as_numeric_array, check_ddof


def _general_exponent(arr: np.ndarray) -> int:
    """The frame's exponent as NumPy's array route finds it: the largest half-range,
    its ``np.frexp`` exponent plus 1 (0 for constant data)."""
    spread = np.max(arr.max(axis=0) / 2 - arr.min(axis=0) / 2)
    return int(np.where(spread > 0, np.frexp(spread)[1] + 1, 0))


def _general_centered(arr: np.ndarray) -> tuple[np.ndarray, int]:
    """The centered data by the general route: ``np.ldexp`` by the exponent, then two
    passes of ``ndarray.mean``; constant columns set to 0."""
    e = _general_exponent(arr)
    Y = np.ldexp(arr.astype(np.float64), -e)
    for _ in range(2):
        Y -= Y.mean(axis=0)
    Y[:, arr.min(axis=0) == arr.max(axis=0)] = 0.0
    return Y, e


def _samples() -> list[np.ndarray]:
    rng = np.random.default_rng(35)
    base = rng.standard_normal((5, 2)) @ np.array([[2.0, 0.6], [0.0, 0.8]])
    unit_range = rng.uniform(0.0, 1.0, (6, 3))
    unit_range[:, 0] = np.linspace(0.25, 0.875, 6)  # a range in [1/2, 1): exponent 0
    return [base + [10.0, -3.0], base * 1e-300, base * 1e300, unit_range,
            rng.standard_normal((40, 4)) * 2.0**-1040, np.column_stack([base[:, 0], np.full(5, 7.0)])]


@pytest.mark.parametrize("index", range(6))
def test_one_exponent_read_and_centering_equal_the_general_route(index):
    """Frame.of, Frame.read and center_array against np.ldexp and ndarray.mean, bit for bit,
    from data at unit scale and exponent 0 to 1e-300, 1e300 and subnormal data (whose
    exponent is below -1022, where the power itself is not a float64)."""
    arr = _samples()[index]
    frame = Frame.of(arr)
    assert frame.exponent.shape == () and frame.exponent.dtype == np.int64
    assert int(frame.exponent) == _general_exponent(arr)
    assert np.array_equal(frame.read(arr), np.ldexp(arr, -_general_exponent(arr)))
    Y, e = _general_centered(arr)
    centered = center_array(arr, 1)
    assert centered.exponent == e
    assert centered.values.tobytes() == Y.tobytes()


def test_exponent_zero_is_read_as_given():
    """At exponent 0 the read is a copy of the data (never the data themselves)."""
    arr = _samples()[3]
    frame = Frame.of(arr)
    assert int(frame.exponent) == 0
    out = frame.read(arr)
    assert out is not arr and out.tobytes() == arr.tobytes()


@pytest.mark.parametrize("index", range(6))
def test_covariance_equals_the_general_route(index):
    """covariance and total_variance: the general route's S = 4**e Y^T Y / (n - 1), bit for bit."""
    arr = _samples()[index]
    Y, e = _general_centered(arr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 1e300 squared: inf, said in a warning
        expected = np.ldexp(Y.T @ Y / (arr.shape[0] - 1), 2 * e)
        expected_total = np.ldexp(Y.ravel() @ Y.ravel() / (arr.shape[0] - 1), 2 * e)
        assert pcalib.covariance(arr).tobytes() == expected.tobytes()
        assert pcalib.total_variance(arr) == float(expected_total)


@pytest.mark.parametrize(("scale", "message"), [(1e300, "above the float64 range"), (1e-300, "below the normal")])
def test_rescale_still_warns_outside_the_float64_range(scale, message):
    """The short cut (a round trip that comes back equal) never hides an overflow or a
    loss of digits: covariance at 1e300 is inf and at 1e-300 is 0, each with its warning."""
    X = np.array([[1.0, 2.0], [3.0, 1.0], [0.5, 4.0]]) * scale
    with pytest.warns(RuntimeWarning, match=message):
        S = pcalib.covariance(X)
    assert np.all(np.isinf(S)) if scale > 1 else np.all(S == 0)


def test_rescale_returns_ldexp_without_warning_inside_the_range():
    values = np.array([[0.75, -0.5], [1e-3, 3.0]])
    for exponent in (0, 5, -40, np.array([3, -7])):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            result = rescale(values, exponent, "values")
        assert result.tobytes() == np.ldexp(values, exponent).tobytes()


def test_subnormal_result_that_lost_no_digit_is_not_warned_about():
    """Subnormal data times 2**0: the round trip comes back equal, no warning."""
    values = np.array([2.0**-1070, 3 * 2.0**-1072])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(rescale(values, 0, "values"), values)
    with pytest.warns(RuntimeWarning, match="below the normal"):
        rescale(values, -3, "values")  # 2**-1073 * 3 / 8: digits lost


def test_array_fast_path_keeps_every_refusal():
    """A real-dtype ndarray is returned as it is; subclasses, bool, complex and object
    arrays still take the checks that name what is wrong."""
    arr = np.ones((3, 2), dtype=np.float16)
    assert as_numeric_array(arr, "X") is arr
    ints = np.arange(6, dtype=np.uint8).reshape(3, 2)
    assert as_numeric_array(ints, "X") is ints
    with pytest.raises(TypeError, match="real numbers"):
        as_numeric_array(np.ones((2, 2), dtype=bool), "X")
    with pytest.raises(TypeError, match="complex"):
        as_numeric_array(np.ones((2, 2), dtype=complex), "X")
    with pytest.raises(TypeError, match="None"):
        as_numeric_array(np.array([[1.0, None]], dtype=object), "X")
    masked = np.ma.masked_array([[1.0, 2.0], [3.0, 4.0]])
    assert type(as_numeric_array(masked, "X")) is not np.ma.MaskedArray


def test_ddof_checks_keep_their_messages():
    assert check_ddof(np.int64(1), 5) == 1 and type(check_ddof(np.int64(1), 5)) is int
    with pytest.raises(TypeError, match="ddof must be an integer"):
        check_ddof(True, 5)
    with pytest.raises(TypeError, match="ddof must be an integer"):
        check_ddof(1.0, 5)
    with pytest.raises(ValueError, match="non-negative"):
        check_ddof(-1, 5)
