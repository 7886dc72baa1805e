r"""What a PCA route returns, and the steps that every route ends with.

A route (the skeletons of :mod:`pcalib._routes.dense` for data in memory, those of
:mod:`pcalib._routes.implicit` for sparse and Dask data and for streams) finds the k
leading singular values :math:`\sigma_j` and axes :math:`v_j` of the centered data Y_c,
read in the units of its frame (:class:`pcalib._linalg.units.Frame`), then:

* :func:`sqrt_eigenvalues`: :math:`\sigma_j = \sqrt{\lambda_j}` from the eigenvalues of
  :math:`Y_c^\top Y_c` or :math:`Y_c Y_c^\top`, round-off below the rank tolerance set
  to 0;
* :func:`axes_from_left`: :math:`v_j = Y_c^\top u_j / \sigma_j` from the Gram
  route's eigenvectors :math:`u_j`;
* :func:`svd_found`, :func:`found_from_axes`: the kept and discarded sums of
  squares and the scores;
* :func:`signed`: the sign convention (:func:`pcalib._linalg.signs.axis_signs`) on the axes
  and the scores;
* :class:`Decomposition`: the result, kept in frame units and converted to the data's
  units when read, with the moments a later ``PCA.partial_fit`` continues from
  (:func:`data_moments`).

:func:`check_variance` refuses, before any of it, data with no variance at all.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypeAlias

import numpy as np

from .._inputs.matrix import Moments
from .._linalg import constants
from .._linalg.center import Center
from .._linalg.certificate import Certificate
from .._linalg.eigen import matrix_times, symmetric_times, transposed_times
from .._linalg.rounding import FormedSpectrum, product_rounding
from .._linalg.signs import axis_signs
from .._linalg.svd import orthonormal_completion
from .._linalg.units import Centered, Frame, rescale, rescale_squares, unresolved_columns

_EPS = np.finfo(np.float64).eps

#: What a dense route finds, in frame units: ``(components (k, p), singular values (k,),
#: total_ss, tail_ss, scores (n, k) or None)``, the sign convention applied.
Found: TypeAlias = tuple[np.ndarray, np.ndarray, float, float, np.ndarray | None]


@dataclass(frozen=True, eq=False)
class CenteredProducts:
    r"""Products with the centered (and scaled) data
    :math:`Y = (X - \mathbf 1 \bar x^\top) D^{-1}`, without forming Y:

    .. math::

        Y B = X (D^{-1} B) - \mathbf 1 \big(\bar x^\top D^{-1} B\big), \qquad
        Y^\top Z = D^{-1} \big(X^\top Z - \bar x\, (\mathbf 1^\top Z)\big),

    each one product with X (SciPy's ``dgemm``, no copy of X in either memory order)
    and a rank-one correction. With `mean` None, X is Y itself (a centered copy); with
    `inv_scale` None, D = I. A 0 in `inv_scale` makes that column of Y exactly 0 (a
    constant column, whatever its value). The corrections cancel no digits when every
    column of Y that is not 0 has :math:`n \bar x_j^2 \le \sum_i (x_{ij} - \bar
    x_j)^2` (the products with X then carry at most twice the rounding error of
    products with Y); :func:`pcalib._routes.dense_krylov.implicitly_centered` checks it.
    """

    X: np.ndarray  #: (n, p) float64, C- or F-contiguous
    mean: np.ndarray | None = None  #: (p,) the column means subtracted, or None
    inv_scale: np.ndarray | None = None  #: (p,) the diagonal of D^-1, or None
    column_ss: np.ndarray | None = None  #: (p,) the column sums of squares of Y, if known

    @property
    def shape(self) -> tuple[int, int]:
        return self.X.shape

    def times(self, B: np.ndarray) -> np.ndarray:
        """:math:`Y B`, (n, b), for B of shape (p, b); (n,) for a vector B of length p."""
        if self.inv_scale is not None:
            B = (B.T * self.inv_scale).T
        product = matrix_times(self.X, B)
        if self.mean is not None:
            product -= self.mean @ B
        return product

    def transposed_times(self, Z: np.ndarray) -> np.ndarray:
        r""":math:`Y^\top Z`, (p, b), for Z of shape (n, b); (p,) for a vector Z of length n."""
        product = transposed_times(self.X, Z)
        if self.mean is not None:
            product -= np.multiply.outer(self.mean, Z.sum(axis=0))
        if self.inv_scale is not None:
            product = (product.T * self.inv_scale).T
        return product

    def gram_times(self, Q: np.ndarray) -> np.ndarray:
        r"""M Q for the smaller of :math:`M = Y^\top Y` (n >= p) and :math:`Y Y^\top`:
        two passes over X."""
        n, p = self.shape
        if n >= p:
            return self.scatter_times(Q)
        return self.times(self.transposed_times(Q))

    def scatter_times(self, Q: np.ndarray) -> np.ndarray:
        r""":math:`Y^\top (Y Q)`, (p, b), for Q of shape (p, b), whatever the shape of Y:
        two passes over X (the products of the certificate, whose axes are p-vectors)."""
        return self.transposed_times(self.times(Q))

    def total_ss(self) -> float:
        r""":math:`\|Y\|_F^2`: the sum of the known column sums, or one pass over a centered copy."""
        if self.column_ss is not None:
            return float(np.sum(self.column_ss))
        flat = self.X.ravel(order="K")
        return float(flat @ flat)

    def rounding(self, total_ss: float) -> float:
        r"""A bound on the rounding of one product :meth:`scatter_times` per unit of
        :math:`\|\mathbf q\|`, for Y with :math:`\|Y\|_F^2` = `total_ss`:
        :func:`pcalib._linalg.rounding.product_rounding`, with the mean's
        correction when the products are taken with the data (`mean` not None)."""
        n, p = self.shape
        if self.mean is None:
            return product_rounding(total_ss, n, p)
        mean = self.mean if self.inv_scale is None else self.mean * self.inv_scale
        return product_rounding(total_ss, n, p, mean_ss=float(mean @ mean))


@dataclass(frozen=True, eq=False)
class FormedProducts:
    r"""Products with the matrix :math:`\tilde M = \mathrm{fl}(\tilde Y^\top\tilde Y)`
    (p x p, its lower triangle) that the Krylov route's fallback formed from its centered
    copy :math:`\tilde Y` (n x p, n >= p), or with the scatter that the eig route formed
    in one pass (with `bound`, :func:`pcalib._linalg.rounding.scatter_error`), kept
    for the certificate of ``PCA(tol=...)``:
    :math:`2p^2` flops a column (``dsymm``) against :math:`4np` for the two passes over
    the copy, which are not read again (measured on :mod:`tests.benchmarks`' 10000 x
    1000, k = 50: the certificate's product took 12% of the fit).

    Their rounding has the bound of the two passes (:meth:`rounding`): the formed
    matrix's entries carry :math:`\gamma_n |\tilde Y|^\top|\tilde Y|` and the product
    :math:`\gamma_p |\tilde M||\mathbf q|`, with :math:`|\tilde M| \le (1 + \gamma_n)
    |\tilde Y|^\top|\tilde Y|` entrywise, so :math:`|\mathrm{fl}(\tilde M\mathbf q) -
    \tilde Y^\top\tilde Y\mathbf q| \le (\gamma_n + \gamma_p + \gamma_n\gamma_p)
    |\tilde Y|^\top|\tilde Y||\mathbf q|`, as for :math:`\tilde Y^\top(\tilde Y\mathbf
    q)`."""

    lower: np.ndarray  #: (p, p) the formed matrix, its lower triangle read
    n: int  #: the rows of the data it was formed from
    #: the rounding of a product per unit of ||q||, where the matrix was not formed
    #: from a centered copy (the one-pass scatter's ``ScatterError.product``)
    bound: float | None = None

    @property
    def shape(self) -> tuple[int, int]:
        return self.n, self.lower.shape[0]

    def scatter_times(self, Q: np.ndarray) -> np.ndarray:
        r""":math:`\tilde M Q`, (p, b), for Q of shape (p, b)."""
        return symmetric_times(self.lower)(np.asfortranarray(Q))

    def rounding(self, total_ss: float) -> float:
        r"""A bound on the rounding of one product :meth:`scatter_times` per unit of
        :math:`\|\mathbf q\|`, the error of the copy and of forming :math:`\tilde M`
        included: :func:`pcalib._linalg.rounding.product_rounding` (class
        docstring), or `bound`."""
        return product_rounding(total_ss, *self.shape) if self.bound is None else self.bound


def column_squares(Yc: np.ndarray) -> np.ndarray:
    r"""(p,) the column sums of squares :math:`\sum_i y_{ij}^2` of a centered copy (one pass)."""
    return np.einsum("ij,ij->j", Yc, Yc)


def check_variance(constant: np.ndarray) -> None:
    """Refuse data whose columns are all constant: then every direction has variance 0,
    and the principal axes and explained-variance ratios are undefined. (Any column
    whose entries are not all equal has a positive variance, whatever its scale.)"""
    if np.all(constant):
        raise ValueError(
            "X has zero total variance: every column is constant (all samples are equal); "
            "principal axes are undefined"
        )


def sqrt_eigenvalues(w: np.ndarray, n: int, p: int) -> np.ndarray:
    """Singular values from eigenvalues of X_c^T X_c or X_c X_c^T (in decreasing order).

    These eigenvalues carry an absolute error of about eps * lambda_max: values
    below the rank tolerance ``max(n, p) * eps * lambda_max`` (including those
    that round-off makes slightly negative) are indistinguishable from 0, and
    are set to exactly 0.
    """
    return np.where(w > max(n, p) * _EPS * w[0], np.sqrt(np.maximum(w, 0.0)), 0.0)


@dataclass(frozen=True, eq=False)
class Decomposition:
    r"""The k leading principal axes of some data, as one route found them.

    Sizes are kept in the units of the data's frame (:class:`pcalib._linalg.units.Frame`),
    where nothing overflows: the centered (or standardized) data are
    ``2**exponent`` times the matrix that was decomposed. The methods convert
    to the data's units, with a warning if a number leaves the float64 range.
    """

    components: np.ndarray  #: (k, p), sign convention applied
    s: np.ndarray  #: (k,) singular values, frame units
    total_ss: float  #: ||Y_c||_F^2, frame units
    tail_ss: float  #: sum of the discarded sigma_j^2 (j > k), frame units
    scores: np.ndarray | None  #: (n, k) frame units, or None
    center: Center  #: the column means, data units
    scale: np.ndarray  #: (p,) data units
    exponent: int
    route: str
    #: the count, mean and scatter matrix of the data, data units, when the route formed
    #: them (the covariance routes, p <= constants.KEPT_MOMENTS_MAX_FEATURES): a later
    #: ``PCA.partial_fit`` continues from them
    moments: Moments | None = None
    #: (p,) the column sums of squares of the decomposed matrix, frame units (where
    #: a column far narrower than another may have underflowed to 0), if known
    column_ss: np.ndarray | None = None
    #: bool (p,), the constant columns, if known
    constant: np.ndarray | None = None
    #: the error bounds certified on the axes and eigenvalues of Y_c^T Y_c (frame
    #: units), with ``PCA(tol=...)`` (:func:`pcalib._linalg.certificate.certify`)
    certificate: Certificate | None = None
    #: the leading eigenvalues of the matrix an exact route formed and solved, and
    #: their error bound, when it had them (the certificate's bound on the rest)
    formed: FormedSpectrum | None = None
    #: products with the route's centered copy, with the data and the mean's
    #: correction where the route took those (the implicit Krylov route), or with the
    #: matrix the eig route formed (:class:`FormedProducts`), kept only
    #: until the certificate is computed from them (``PCA(tol=...)``,
    #: :func:`pcalib.solvers.certified`, which drops them): no centering of the data
    #: again, block by block
    copy_products: CenteredProducts | FormedProducts | None = None

    @classmethod
    def of_centered(
        cls, found: Found, centered: Centered, route: str, column_ss: np.ndarray, moments: Moments | None = None,
        formed: FormedSpectrum | None = None, certifiable: bool = False, formed_matrix: np.ndarray | None = None,
    ) -> Decomposition:
        """What a route found on the centered copy `centered` (:func:`pcalib._linalg.units.center_array`),
        whose column sums of squares were `column_ss` (`formed`: its formed matrix's
        spectrum, if known; `certifiable`: keep products for the certificate, with
        `formed_matrix` (:class:`FormedProducts`) where the route kept the
        :math:`Y_c^\top Y_c` it formed, else with the copy)."""
        products = None
        if certifiable:
            products = (CenteredProducts(centered.values, column_ss=column_ss) if formed_matrix is None
                        else FormedProducts(formed_matrix, centered.values.shape[0]))
        return cls(*found, centered.center, centered.scale, centered.exponent, route, moments, column_ss,
                   centered.constant, formed=formed, copy_products=products)

    def truncated(self, k: int) -> Decomposition:
        """The first k axes; the others join the discarded tail."""
        tail = self.tail_ss + float(self.s[k:] @ self.s[k:])
        scores = self.scores[:, :k] if self.scores is not None else None
        return replace(self, components=self.components[:k], s=self.s[:k], tail_ss=tail, scores=scores)

    def lost_digits(self, n: int) -> bool:
        r"""Whether :math:`\lambda_k / \lambda_1 < \sqrt{\varepsilon}` (k capped at the
        rank bound n - 1 of centered data): then the eig and gram routes, accurate to
        about :math:`\varepsilon \lambda_1`, have kept fewer than half the digits of
        :math:`\lambda_k`."""
        k = min(self.s.size, n - 1)
        return bool(self.s[k - 1] ** 2 < np.sqrt(_EPS) * self.s[0] ** 2)

    def tail_is_round_off(self, n: int, p: int) -> bool:
        r"""Whether the discarded variance is below what the route resolves: each
        discarded :math:`\sigma_j` below :math:`\max(n, p)\,\varepsilon\,\sigma_1`
        for the SVD (which finds every :math:`\sigma_j` to about
        :math:`\varepsilon\sigma_1`), the whole tail below
        :math:`\max(n, p)\,\varepsilon \|Y_c\|_F^2` for the other routes (which
        find it as the difference of two sums)."""
        m, k = min(n, p), self.s.size
        if self.route == "svd":
            return bool(self.tail_ss <= (m - k) * (max(n, p) * _EPS * self.s[0]) ** 2)
        return bool(self.tail_ss <= max(n, p) * _EPS * self.total_ss)

    @property
    def mean(self) -> np.ndarray:
        """(p,) the column means as one float64 vector, data units."""
        return self.center.value

    def resolution(self, n: int, p: int) -> float:
        r"""The smallest variance, relative to the total, that the route resolves:
        :math:`(\max(n, p)\,\varepsilon)^2` for the SVD (each :math:`\sigma_j` to about
        :math:`\max(n, p)\,\varepsilon\,\sigma_1`), :math:`\max(n, p)\,\varepsilon`
        for the routes through :math:`Y_c^\top Y_c` or :math:`Y_c Y_c^\top` (each
        eigenvalue to about that times :math:`\lambda_1`)."""
        tolerance = max(n, p) * _EPS
        return tolerance**2 if self.route == "svd" else tolerance

    def unresolved(self, n: int, p: int) -> tuple[np.ndarray, np.ndarray]:
        r"""``(columns, components)``: the varying columns whose variance is below
        :meth:`resolution` of the total (:func:`pcalib._linalg.units.unresolved_columns`), and,
        when there are any, the components whose variance is too (0-based indices).
        The eigenvalues and axes of those components depend on columns the fit could
        not see: they are not determined. Both empty when the route did not record its
        column sums of squares."""
        none = np.zeros(0, dtype=int)
        if self.column_ss is None or self.constant is None:
            return none, none
        resolution = self.resolution(n, p)
        columns = unresolved_columns(self.column_ss, self.constant, resolution)
        if columns.size == 0:
            return none, none
        return columns, np.flatnonzero(self.explained_variance_ratio() <= resolution)

    def singular_values(self) -> np.ndarray:
        return rescale(self.s, self.exponent, "singular values")

    def explained_variance(self, divisor: int) -> np.ndarray:
        r""":math:`\sigma_j^2 / \text{divisor}` in the data's units, squared without
        leaving the float64 range (:func:`pcalib._linalg.units.rescale_squares`): a
        :math:`\sigma_j` of :math:`10^{-200}` in units where another is 1 is a variance of
        :math:`10^{-400}` there, but may be 1 in the data's units."""
        return rescale_squares(self.s, self.exponent, "explained variances", divisor)

    def explained_variance_ratio(self) -> np.ndarray:
        return self.s**2 / self.total_ss

    def divisor(self) -> np.ndarray:
        r"""(p,) D: the decomposed matrix is :math:`(X - \mathbf 1 \bar x^\top) D^{-1}`,
        data units (the scale times :math:`2^{\text{exponent}}`)."""
        return np.ldexp(self.scale, self.exponent)

    def data_scores(self) -> np.ndarray:
        if self.scores is None:
            raise ValueError("this route computed no scores (need_scores=False, or data not in memory)")
        return rescale(self.scores, self.exponent, "scores")


def data_moments(n: int, C: np.ndarray, scale: np.ndarray, center: Center, frame: Frame) -> Moments | None:
    r"""The :class:`pcalib._inputs.matrix.Moments` of data whose scatter matrix, scaled by
    `scale` (the frame's standard deviations, or ones), is C in the units of `frame`:
    :math:`M_{ij} = 2^{e_i + e_j} s_i s_j C_{ij}` (kept in units of :math:`4^{\max e}`).
    None if p exceeds ``constants.KEPT_MOMENTS_MAX_FEATURES``."""
    p = C.shape[0]
    if p > constants.KEPT_MOMENTS_MAX_FEATURES:
        return None
    mantissa, scale_exponent = np.frexp(scale)
    exponent = np.broadcast_to(frame.exponent, (p,)) + scale_exponent
    top = int(exponent.max())  # M in units of 4**top: nothing overflows
    with np.errstate(under="ignore"):
        M = np.ldexp(np.ldexp(C * mantissa[:, None] * mantissa, exponent[:, None] - top), exponent[None, :] - top)
    value = np.where(frame.constant, center.value, np.nan)
    return Moments(n, center.shift, center.offset, M, value, top)


def svd_moments(centered: Centered, s_all: np.ndarray, Vt: np.ndarray) -> Moments | None:
    r""":func:`data_moments` of the centered copy `centered` from its thin SVD, the scatter
    matrix :math:`V \Sigma^2 V^\top` (None, and nothing formed, beyond
    ``constants.KEPT_MOMENTS_MAX_FEATURES`` columns)."""
    if Vt.shape[1] > constants.KEPT_MOMENTS_MAX_FEATURES:
        return None
    frame = Frame(None, np.asarray(centered.exponent), centered.constant)
    return data_moments(centered.values.shape[0], (Vt.T * s_all**2) @ Vt, centered.scale, centered.center, frame)


def signed(
    components: np.ndarray, s: np.ndarray, total_ss: float, tail_ss: float, scores: np.ndarray | None
) -> Found:
    """Apply the sign convention to the components, and to the scores with them."""
    signs = axis_signs(components)
    components = components * signs[:, None]
    if scores is not None:
        scores = scores * signs
    return components, s, total_ss, tail_ss, scores


def svd_found(
    U: np.ndarray, s_all: np.ndarray, Vt: np.ndarray, k: int, need_scores: bool
) -> Found:
    r"""The k leading of the thin SVD ``U, s_all, Vt`` of the centered data: the discarded
    :math:`\sum_{j > k} \sigma_j^2` exact, scores :math:`U_k \Sigma_k`, signs applied."""
    total_ss = float(s_all @ s_all)
    s, components = s_all[:k], Vt[:k]
    tail_ss = float(s_all[k:] @ s_all[k:])
    scores = U[:, :k] * s if need_scores else None
    return signed(components, s, total_ss, tail_ss, scores)


def found_from_axes(
    Xc: np.ndarray | CenteredProducts, s: np.ndarray, V: np.ndarray, need_scores: bool,
    column_ss: np.ndarray | None = None,
) -> Found:
    """What a route found from the axes V (p, k) and singular values s of `Xc` (a
    centered copy, whose column sums of squares `column_ss` may be known, or products
    with it): the discarded sum of squares as the difference of two sums, scores
    :math:`X_c V`, signs applied."""
    if isinstance(Xc, np.ndarray):
        total_ss = CenteredProducts(Xc, column_ss=column_ss).total_ss()
        scores = Xc @ V if need_scores else None
    else:
        total_ss = Xc.total_ss()
        scores = Xc.times(V) if need_scores else None
    tail_ss = max(total_ss - float(s @ s), 0.0)
    return signed(np.ascontiguousarray(V.T), s, total_ss, tail_ss, scores)


def axes_from_left(
    Xc: np.ndarray | CenteredProducts, U: np.ndarray, s: np.ndarray, k: int
) -> np.ndarray:
    r"""Axes :math:`v_j = X_c^\top u_j / \sigma_j` (p, k) from left singular vectors U.

    For :math:`\sigma_j = 0`, :math:`X_c^\top u_j / \sigma_j` would be noise divided
    by noise: the completion gives unit vectors orthogonal to the other axes there
    (deterministic, never NaN), and its QR factorization re-orthonormalizes the
    recovered axes, whose orthogonality the squared condition number degrades for
    small :math:`\sigma_j`. The product is NumPy's after NumPy's eigensolver (U of
    at most ``constants.NUMPY_MAX_M`` rows), SciPy's after SciPy's
    (:func:`pcalib._linalg.eigen.transposed_times`)."""
    keep = s > 0
    B = U[:, keep] / s[keep]
    if isinstance(Xc, CenteredProducts):
        return orthonormal_completion(Xc.transposed_times(B), k)
    return orthonormal_completion(Xc.T @ B if U.shape[0] <= constants.NUMPY_MAX_M else transposed_times(Xc, B), k)

