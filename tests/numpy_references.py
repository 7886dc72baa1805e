"""Reference results computed from first principles in NumPy, shared by several test files."""

import numpy as np


def ppca_closed_form(X: np.ndarray, k: int) -> tuple[np.ndarray, float]:
    r"""Tipping and Bishop's maximum-likelihood PPCA from NumPy's ``eigh`` of the
    covariance with divisor n: :math:`\sigma^2` the mean of the p - k smallest
    eigenvalues, :math:`W = V_k (\Lambda_k - \sigma^2 I)^{1/2}`, each column signed so
    that its entry of largest absolute value is positive (pcalib's convention)."""
    lam, V = np.linalg.eigh(np.cov(X, rowvar=False, ddof=0))
    lam, V = lam[::-1], V[:, ::-1]
    sigma2 = float(lam[k:].mean())
    W = V[:, :k] * np.sqrt(lam[:k] - sigma2)
    W *= np.sign(W[np.argmax(np.abs(W), axis=0), np.arange(k)])
    return W, sigma2


def symmetric_with_spectrum(values, seed: int = 0) -> np.ndarray:
    r"""The symmetric matrix :math:`Q \operatorname{diag}(\text{values}) Q^\top` with Q
    the orthonormal factor of a seeded Gaussian matrix: a known spectrum in a random
    basis."""
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.standard_normal((len(values), len(values))))[0]
    return (Q * values) @ Q.T


def exact_scatter(X: np.ndarray, scale: np.ndarray) -> list[list]:
    r""":math:`M = D^{-1}(X - \mathbf 1\bar x^\top)^\top(X - \mathbf 1\bar x^\top)D^{-1}` in
    rational arithmetic (``fractions.Fraction``): the exact mean of the float64 (or
    integer) entries of X, D the diagonal of `scale` (each entry a float64, taken
    exactly: the scales a fit computed, or a power of two for a frame's units)."""
    from fractions import Fraction

    n, p = X.shape
    rows = [[Fraction(v.item()) for v in row] for row in X]
    means = [sum(row[j] for row in rows) / n for j in range(p)]
    centered = [[(row[j] - means[j]) / Fraction(float(scale[j])) for j in range(p)] for row in rows]
    return [[sum(row[j] * row[l] for row in centered) for l in range(p)] for j in range(p)]


def exact_times(matrix: list[list]):
    """The product ``q -> matrix @ q`` in rational arithmetic, for a square `matrix` of
    Fractions (from :func:`exact_scatter`) and q a list of Fractions."""
    return lambda q: [sum(entry * value for entry, value in zip(row, q)) for row in matrix]
