"""The sign convention: largest-|entry| positive, ties decided by the first entry."""

import numpy as np
import pytest

import pcalib
from pcalib._linalg.signs import axis_signs


def test_largest_entry_becomes_positive():
    axes = np.array([[0.1, -0.9, 0.3], [0.5, 0.2, -0.1]])
    np.testing.assert_array_equal(axis_signs(axes), [-1.0, 1.0])


def test_zero_entries_never_wipe_an_axis():
    axes = np.array([[0.0, -1.0], [0.0, 0.0]])
    signs = axis_signs(axes)
    assert set(signs) <= {-1.0, 1.0}
    np.testing.assert_array_equal(signs, [-1.0, 1.0])


@pytest.mark.parametrize("wobble", [0.0, 1e-15, -1e-15, 1e-12])
def test_ties_are_decided_by_the_first_entry_whatever_the_round_off(wobble):
    axis = np.array([[1.0 + wobble, -1.0]]) / np.sqrt(2)
    np.testing.assert_array_equal(axis_signs(axis), [1.0])
    np.testing.assert_array_equal(axis_signs(-axis), [-1.0])


def test_all_routes_agree_on_signs_when_the_axes_have_tied_entries():
    # Principal axes (1, -1)/sqrt(2) and (1, 1)/sqrt(2): both have two entries of equal size.
    for a, b in [(3.0, 1.0), (2.0, 0.5), (5.0, 4.0), (1.0, 0.3), (7.0, 2.0)]:
        X = np.array([[a, a], [-a, -a], [b, -b], [-b, b]])
        results = [route(X) for route in (pcalib.pca_eig, pcalib.pca_svd, pcalib.pca_gram)]
        for other in results[1:]:
            np.testing.assert_allclose(other.components, results[0].components, atol=1e-12)
            np.testing.assert_allclose(other.scores, results[0].scores, atol=1e-10)
        assert np.all(results[0].components[:, 0] > 0)
