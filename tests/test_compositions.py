"""Tests of pcalib.closure and pcalib.clr against first principles."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from pcalib import closure, clr, ilr, ilr_inv, multiplicative_replacement, sbp_basis, variation_matrix


def test_closure_sums_and_ratios():
    rng = np.random.default_rng(0)
    X = rng.gamma(2.0, size=(20, 5))
    kept = X.copy()
    C = closure(X, total=100)
    assert_allclose(C.sum(axis=1), 100, rtol=1e-14)
    assert_allclose(C[:, 1:] / C[:, :1], X[:, 1:] / X[:, :1], rtol=1e-13)  # ratios kept
    np.testing.assert_array_equal(X, kept)
    assert_allclose(closure([[0.0, 2.0]]), [[0.0, 1.0]])  # zeros allowed in a closure


def test_clr_first_principles():
    rng = np.random.default_rng(1)
    X = rng.gamma(2.0, size=(30, 4))
    g = np.exp(np.log(X).mean(axis=1))  # geometric mean
    assert_allclose(clr(X), np.log(X / g[:, None]), atol=1e-14)
    assert_allclose(clr(X).sum(axis=1), 0, atol=1e-14)
    assert_allclose(clr(7.5 * X), clr(X), atol=1e-14)  # scale invariant
    assert_allclose(clr(closure(X)), clr(X), atol=1e-14)


def test_clr_inverse_by_softmax():
    rng = np.random.default_rng(2)
    X = closure(rng.gamma(2.0, size=(10, 6)))
    Y = clr(X)
    back = np.exp(Y) / np.exp(Y).sum(axis=1, keepdims=True)
    assert_allclose(back, X, rtol=1e-13)


def test_zero_part_refused_naming_the_entry():
    X = np.array([[1.0, 2.0, 3.0], [4.0, 0.0, 6.0], [0.0, 1.0, 1.0]])
    with pytest.raises(ValueError, match=r"zero part at X\[1, 1\] \(2 zero\(s\) in all\)"):
        clr(X)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, index=["s1", "s2", "s3"], columns=["Ca", "Mg", "Na"])
    with pytest.raises(ValueError, match=r"X\[1, 1\] \(row 's2', column 'Mg'\)"):
        clr(frame)


@pytest.mark.parametrize(("func", "kind"), [(closure, "non-negative"), (clr, "positive")])
def test_negative_and_nonfinite_refused(func, kind):
    # clr refuses zeros too, so its message asks for positive parts (review 2, #5)
    with pytest.raises(ValueError, match=rf" {kind} parts, got X\[0, 1\] = -1"):
        func([[1.0, -1.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="NaN|inf"):
        func([[1.0, np.nan], [1.0, 1.0]])
    with pytest.raises(TypeError):
        func([["a", "b"]])


def test_closure_refuses_empty_row_and_bad_total():
    with pytest.raises(ValueError, match="row 1 of X sums to 0"):
        closure([[1.0, 1.0], [0.0, 0.0]])
    for total in (0, -1.0, np.inf, True, "100"):
        with pytest.raises(ValueError, match="total must be a positive finite number"):
            closure([[1.0, 1.0]], total=total)


def test_dataframes_in_and_out():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame([[1.0, 3.0], [2.0, 2.0]], index=["a", "b"], columns=["p", "q"])
    kept = frame.copy()
    out = clr(closure(frame, total=100))
    assert isinstance(out, pd.DataFrame) and list(out.index) == ["a", "b"]
    assert list(out.columns) == ["p", "q"]
    pd.testing.assert_frame_equal(frame, kept)


# -- ilr, ilr_inv, zeros, log-ratio variances: scikit-bio as the reference -----------------------

skbio_composition = pytest.importorskip("skbio.stats.composition")


def compositions(seed: int, n: int = 40, D: int = 6) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.gamma(2.0, size=(n, D)) * rng.uniform(0.1, 10.0, D)


@pytest.mark.parametrize("seed", range(3))
def test_ilr_and_its_inverse_match_scikit_bio(seed):
    X = compositions(seed)
    assert_allclose(ilr(X), skbio_composition.ilr(closure(X)), atol=1e-13)
    assert_allclose(ilr_inv(ilr(X)), closure(X), rtol=1e-13)
    assert_allclose(ilr_inv(ilr(X)), skbio_composition.ilr_inv(skbio_composition.ilr(closure(X))), rtol=1e-13)
    # a basis of one's own: a sequential binary partition, as scikit-bio builds it
    sbp = np.array([[1, 1, 1, -1, -1, -1], [1, -1, -1, 0, 0, 0], [0, 1, -1, 0, 0, 0],
                    [0, 0, 0, 1, -1, -1], [0, 0, 0, 0, 1, -1]])
    basis = skbio_composition.sbp_basis(sbp)
    assert_allclose(ilr(X, basis), skbio_composition.ilr(closure(X), basis), atol=1e-13)
    assert_allclose(ilr_inv(ilr(X, basis), basis), closure(X), rtol=1e-13)


def test_ilr_is_an_isometry_of_the_clr_plane():
    """PCA of ilr coordinates has the non-zero eigenvalues of PCA of clr data."""
    X = compositions(4, n=200)
    lam_clr = np.linalg.eigvalsh(np.cov(clr(X), rowvar=False))[::-1]
    lam_ilr = np.linalg.eigvalsh(np.cov(ilr(X), rowvar=False))[::-1]
    assert_allclose(lam_ilr, lam_clr[:-1], rtol=1e-10)
    D = ((ilr(X)[:, None] - ilr(X)[None]) ** 2).sum(axis=2)
    assert_allclose(D, ((clr(X)[:, None] - clr(X)[None]) ** 2).sum(axis=2), atol=1e-12)


def test_ilr_refuses_a_basis_outside_the_clr_plane():
    with pytest.raises(ValueError, match=r"basis must have shape \(p - 1, p\) = \(2, 3\)"):
        ilr([[1.0, 2.0, 3.0]], np.eye(3))
    with pytest.raises(ValueError, match="orthonormal rows that each sum to 0"):
        ilr([[1.0, 2.0, 3.0]], np.eye(3)[:2])
    with pytest.raises(ValueError, match="zero part"):
        ilr([[1.0, 0.0, 3.0]])


def random_sbp(p: int, rng: np.random.Generator) -> np.ndarray:
    """A sequential binary partition of p parts: split the groups at random, in turn."""
    rows, groups = [], [np.arange(p)]
    while groups:
        group = groups.pop(0)
        if group.size < 2:
            continue
        group = rng.permutation(group)
        cut = int(rng.integers(1, group.size))
        row = np.zeros(p, dtype=int)
        row[group[:cut]], row[group[cut:]] = 1, -1
        rows.append(row)
        groups += [group[:cut], group[cut:]]
    return np.array(rows)


@pytest.mark.parametrize("seed", range(5))
def test_sbp_basis_matches_scikit_bio_and_gives_balances(seed):
    rng = np.random.default_rng(seed)
    p = int(rng.integers(2, 9))
    sbp = random_sbp(p, rng)
    Psi = sbp_basis(sbp)
    assert_allclose(Psi, skbio_composition.sbp_basis(sbp), atol=1e-15)
    X = compositions(seed, D=p)
    # each coordinate is the balance sqrt(rs / (r + s)) log(g(x+) / g(x-))
    logs = np.log(X)
    for i, row in enumerate(sbp):
        r, s = np.sum(row > 0), np.sum(row < 0)
        balance = np.sqrt(r * s / (r + s)) * (logs[:, row > 0].mean(axis=1) - logs[:, row < 0].mean(axis=1))
        assert_allclose(ilr(X, Psi)[:, i], balance, atol=1e-13)
    assert_allclose(ilr_inv(ilr(X, Psi), Psi), closure(X), rtol=1e-13)


def test_sbp_basis_refuses_what_is_not_a_partition():
    with pytest.raises(ValueError, match="not a sequential binary partition"):
        sbp_basis([[1, 1, -1], [1, 0, -1]])  # the second split crosses the first
    with pytest.raises(ValueError, match=r"sbp row 1 must mark at least one part \+1 and one part -1"):
        sbp_basis([[1, 1, -1], [1, 1, 0]])
    with pytest.raises(ValueError, match=r"\+1, -1 and 0 only"):
        sbp_basis([[1, 2, -1], [1, -1, 0]])
    with pytest.raises(ValueError, match=r"shape \(p - 1, p\) with p >= 2"):
        sbp_basis([[1, 1, -1]])


def test_multiplicative_replacement_matches_scikit_bio_and_keeps_ratios():
    rng = np.random.default_rng(5)
    X = rng.gamma(2.0, size=(30, 5))
    X[rng.random(X.shape) < 0.2] = 0.0
    X[:, 0] += 0.1  # no row of zeros
    for delta in (None, 1e-3):
        ours = multiplicative_replacement(X, delta)
        assert_allclose(ours, skbio_composition.multi_replace(X, delta), rtol=1e-14)
        assert_allclose(ours.sum(axis=1), 1, rtol=1e-14)
        kept = X > 0
        ratios = np.divide(ours, closure(X), out=np.zeros_like(ours), where=kept)
        for i in range(X.shape[0]):  # one factor per row on the non-zero parts
            assert_allclose(ratios[i, kept[i]], ratios[i, kept[i]][0], rtol=1e-13)
    with pytest.raises(ValueError, match=r"delta=0.5 is too large: row 0 has 2 zero"):
        multiplicative_replacement([[0.0, 0.0, 1.0]], delta=0.5)
    with pytest.raises(ValueError, match="delta must be a positive finite number"):
        multiplicative_replacement([[0.0, 1.0]], delta=-1.0)


def test_variation_matrix_matches_scikit_bio_and_is_subcompositionally_coherent():
    X = compositions(6)
    T = variation_matrix(X)
    assert_allclose(T, np.asarray(skbio_composition.pairwise_vlr(X).data), atol=1e-13)
    assert_allclose(T, variation_matrix(closure(X, total=100)), atol=1e-13)
    sub = [0, 2, 3]
    assert_allclose(variation_matrix(X[:, sub]), T[np.ix_(sub, sub)], atol=1e-13)
    # total variance: tr of the clr covariance
    assert_allclose(T.sum() / (2 * 6), np.trace(np.cov(clr(X), rowvar=False)), rtol=1e-12)
    # clr correlations are not coherent: they change with the parts kept
    full = np.corrcoef(clr(X), rowvar=False)[0, 2]
    part = np.corrcoef(clr(X[:, sub]), rowvar=False)[0, 1]
    assert abs(full - part) > 0.05
