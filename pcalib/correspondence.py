r"""Correspondence analysis and multiple correspondence analysis (chapter
*Categories, counts and compositions*).

In the book's notation: correspondence analysis (CA) of an a x b table of counts
:math:`N` with total :math:`n` works with the correspondence matrix :math:`\Pi = N / n`,
its row and column masses :math:`\mathbf r = \Pi\mathbf 1`,
:math:`\mathbf c = \Pi^\top\mathbf 1` and the standardized residuals

.. math::

    E = D_{\mathbf r}^{-1/2}\,(\Pi - \mathbf r\mathbf c^\top)\,D_{\mathbf c}^{-1/2}
      = U_E \Sigma_E V_E^\top ,

whose squared entries sum to the total inertia :math:`\chi^2 / n`. The principal
inertias are :math:`\theta_s = \sigma_s(E)^2`; the principal coordinates of the rows
and columns are :math:`Y_{\mathrm r} = D_{\mathbf r}^{-1/2} U_E \Sigma_E` and
:math:`Y_{\mathrm c} = D_{\mathbf c}^{-1/2} V_E \Sigma_E`, the standard coordinates
:math:`\Gamma_{\mathrm r} = D_{\mathbf r}^{-1/2} U_E` and
:math:`\Gamma_{\mathrm c} = D_{\mathbf c}^{-1/2} V_E`. Contributions (percent) are
:math:`100\, r_i y_{is}^2 / \theta_s = 100\, u_{is}^2`, and the squared cosines
:math:`y_{is}^2 / d_i^2` with :math:`d_i^2 = \sum_j e_{ij}^2 / r_i` the squared
chi-square distance of row profile i to the average profile. These are FactoMineR's
definitions (``CA``: ``eig``, ``row$coord``, ``row$contrib``, ``row$cos2``, ...).

Sign convention: each right singular vector :math:`\mathbf v_s` is flipped so that its
entry of largest absolute value is positive (pcalib's convention for axes; FactoMineR
leaves the sign to LAPACK).

Multiple correspondence analysis (MCA) of p categorical columns is the CA of the n x J
indicator matrix :math:`Z` (one column per category, J categories in all).

The engine is in private modules: :mod:`pcalib._categories.ca_tables` reads a table in exact
power-of-two units, :mod:`pcalib._categories.ca_solver` finds the leading singular triplets of
E (LAPACK for small tables, Krylov methods on dense or sparse large ones),
:mod:`pcalib._categories.mca_coding` codes categorical columns and :mod:`pcalib._categories.mca_fit` gives
MCA's spectrum and corrected inertias.
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike

from ._categories.ca_solver import residual_svd
from ._categories.ca_tables import aligned_rows, counts_table, refuse_empty
from ._categories.mca_coding import category_names, code_column, coded_columns, columns_of, indicator
from ._categories.mca_fit import corrected_ratios, correlation_ratios, mca_spectrum
from ._estimator.base import EstimatorBase
from ._linalg.signs import axis_signs
from ._utils.frames import check_feature_names, feature_names_of
from ._utils.tables import row_index_of

__all__ = ["CA", "MCA", "SupplementaryCategories"]

_EPS = float(np.finfo(np.float64).eps)


def _check_k(k: object, upper: int, what: str) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"n_components must be an integer, got {k!r}")
    if not 1 <= int(k) <= upper:
        raise ValueError(
            f"n_components must satisfy 1 <= n_components <= {upper} ({what}), got {int(k)}"
        )
    return int(k)


def _forget_fit(estimator: EstimatorBase) -> None:
    """Remove every fitted attribute (public names ending in ``_``): a fit that raises
    leaves the estimator unfitted, for pcalib and for scikit-learn's ``check_is_fitted``,
    not fitted to the data of a previous call."""
    for name in [v for v in vars(estimator) if v.endswith("_") and not v.startswith("_")]:
        delattr(estimator, name)


def _fit_or_forget(estimator: Any, fit: Any, X: ArrayLike) -> Any:
    """``fit(X)`` with no fitted attribute left from before, nor after a failure."""
    _forget_fit(estimator)
    try:
        return fit(X)
    except BaseException:
        _forget_fit(estimator)
        raise


def _cos2(U: np.ndarray, s: np.ndarray, inertia: np.ndarray) -> np.ndarray:
    """Squared cosines ``(U s)**2 / inertia`` (the principal coordinates squared times
    the mass, over the mass times d**2), in one array; 0 where d = 0."""
    out = U * s
    out **= 2
    positive = inertia > 0
    out[positive] /= inertia[positive, None]
    out[~positive] = 0.0
    return out


def _row_quality(
    F: np.ndarray, eigenvalues: np.ndarray, Z: scipy.sparse.csr_matrix, counts: np.ndarray, p: int
) -> tuple[np.ndarray, np.ndarray]:
    r"""The contributions (percent) and squared cosines of MCA's individuals:
    :math:`100\,y_{is}^2/(n\lambda_s)` (mass 1/n) and :math:`y_{is}^2/d_i^2`, with
    :math:`d_i^2 = \frac{n}{p}\sum_{j \ni i} \frac{1}{n_j} - 1` the squared chi-square
    distance of individual i to the centroid (its categories j)."""
    n = F.shape[0]
    d2 = np.asarray(Z @ (n / counts)).ravel() / p - 1.0
    return 100.0 * F**2 / (n * eigenvalues), F**2 / d2[:, None]


class CA(EstimatorBase):
    r"""Correspondence analysis of a contingency table (FactoMineR's conventions).

    The SVD :math:`E = U_E\Sigma_E V_E^\top` of the standardized residuals
    :math:`E = D_{\mathbf r}^{-1/2}(\Pi - \mathbf r\mathbf c^\top)D_{\mathbf c}^{-1/2}`,
    :math:`\Pi = N/n` (module docstring). The rows of the fitted table are the
    individuals, its columns the features: ``transform`` places new rows
    (supplementary rows with the same columns) by the transition formula

    .. math:: \mathbf y = \frac{\mathbf h^\top}{\mathbf h^\top\mathbf 1}\, \Gamma_{\mathrm c} ,

    the profile of the row times the column standard coordinates; on the fitted rows
    it gives their principal coordinates. :meth:`transform_columns` places
    supplementary columns the same way. The table is read in exact power-of-two units
    (CA does not change when the table is multiplied by a constant), so counts of
    :math:`10^{-300}` or :math:`10^{300}` give the same axes. For small tables the SVD
    is LAPACK's; for large ones only the k leading triplets are found, from the leading
    eigenvectors :math:`V_k` of the Gram matrix of the smaller side (:math:`E^\top E`
    or :math:`EE^\top`): by a block Krylov method on a dense table (E formed in the
    fit's own copy; where the spectrum is flat near the k-th value, by Lanczos on
    the formed Gram matrix), or by ARPACK's ``eigsh`` on a ``scipy.sparse`` one (never
    densified: the Gram matrix is applied as an operator); the singular values come
    from an SVD of the thin :math:`EV_k`. A dense table that is at least 75% zeros is
    read into a sparse one in one pass and fitted as such (the same numbers).

    Parameters
    ----------
    n_components : int, default 2
        k, with 1 <= k <= min(a, b) - 1 (the rank of E is at most that).

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (k,)
        Principal inertias :math:`\theta_1 \ge \dots \ge \theta_k` (FactoMineR's
        ``eig[, 1]``).
    total_inertia_ : float
        :math:`\sum_{ij} e_{ij}^2 = \chi^2 / n`, the sum of all principal inertias.
    explained_inertia_ratio_ : ndarray of shape (k,)
        :math:`\theta_s` / ``total_inertia_``.
    row_masses_, column_masses_ : ndarrays of shape (a,) and (b,)
        :math:`\mathbf r` and :math:`\mathbf c`.
    row_coordinates_, column_coordinates_ : ndarrays of shape (a, k) and (b, k)
        Principal coordinates :math:`Y_{\mathrm r}` and :math:`Y_{\mathrm c}`
        (``row$coord``, ``col$coord``).
    row_standard_coordinates_, column_standard_coordinates_ : ndarrays
        :math:`\Gamma_{\mathrm r}` and :math:`\Gamma_{\mathrm c}` (first k columns).
    row_contributions_, column_contributions_ : ndarrays
        Percent of each axis's inertia, :math:`100\,u_{is}^2` and :math:`100\,v_{js}^2`
        (``row$contrib``).
    row_cos2_, column_cos2_ : ndarrays
        :math:`y_{is}^2 / d_i^2` (``row$cos2``); a row whose profile is the average
        profile (:math:`d_i = 0`) has cos2 0 on every axis.
    row_inertias_, column_inertias_ : ndarrays of shape (a,) and (b,)
        :math:`r_i d_i^2` and :math:`c_j d_j^2` (``row$inertia``); each sums to
        ``total_inertia_``.
    n_components_, n_features_in_ : int
    feature_names_in_ : ndarray of str objects
        When fitted on a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np, scipy.stats, pcalib
    >>> N = np.array([[20, 5, 3], [6, 15, 9], [2, 8, 22]])
    >>> ca = pcalib.CA(2).fit(N)
    >>> chi2 = scipy.stats.chi2_contingency(N, correction=False)[0]
    >>> bool(np.isclose(ca.total_inertia_, chi2 / N.sum()))
    True
    >>> # 2 = min(3, 3) - 1 axes hold all the inertia
    >>> bool(np.isclose(ca.eigenvalues_.sum(), ca.total_inertia_))
    True
    """

    _accepts_sparse = True
    _fit_minimum = (
        (2, "a contingency table needs 2 rows for one principal axis"),
        (2, "a contingency table needs 2 columns for one principal axis"),
    )

    def __init__(self, n_components: int = 2) -> None:
        self.n_components = n_components

    @property
    def _n_features_out(self) -> int:
        return self.eigenvalues_.shape[0]

    def __sklearn_tags__(self) -> Any:
        """scikit-learn's tags, with ``positive_only``: a table of counts."""
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags

    def fit(self, X: ArrayLike, y: object = None) -> CA:
        """Fit on the table `X` (a x b counts, array, DataFrame or sparse; bool is read
        as 0 and 1); `X` is not modified. `y` is ignored. Returns self.

        Raises
        ------
        ValueError
            A negative count (named by position), an empty row or column, fewer than
            2 rows or columns, n_components out of range, or a table whose rows and
            columns are independent beyond axis n_components (no such axis). A fit
            that raises leaves the estimator unfitted.
        """
        return _fit_or_forget(self, self._fit, X)

    def _fit(self, X: ArrayLike) -> CA:
        data = self._remember_input(X)
        self._row_index = row_index_of(X)
        counts = counts_table(data)
        I, J = counts.shape
        for count, (least, why), what in zip((I, J), self._fit_minimum, ("row", "column")):
            if count < least:
                raise ValueError(f"X has {count} {what}(s) (shape={counts.shape}): {why}")
        k = _check_k(self.n_components, min(I, J) - 1, f"the rank of a {I} x {J} table is at most {min(I, J) - 1}")
        refuse_empty(counts.row_sums, X, 0)
        refuse_empty(counts.column_sums, X, 1)
        n = counts.total
        r, c = counts.row_sums / n, counts.column_sums / n
        U, s, V, total, row_inertia, col_inertia = residual_svd(counts, k)
        # round-off in S is relative to the size of A = D_r^-1/2 P D_c^-1/2, ||A||_F^2 = 1 + total
        tol = max(I, J) * _EPS * np.sqrt(1.0 + total)
        if not s[-1] > tol:
            rank = int(np.sum(s > tol))
            raise ValueError(
                f"the table has {rank} non-zero principal inertia(s) (its rows and columns are "
                f"independent beyond that), so n_components={k} axes are not defined; "
                f"choose n_components <= {rank}" if rank else
                "the table has total inertia 0: every row has the same profile (rows and "
                "columns independent), so there is no axis to find"
            )
        signs = axis_signs(V.T)
        U *= signs  # U and V are fresh arrays of the SVD
        V *= signs
        self._set_results(U, s, V, r, c, total, row_inertia, col_inertia)
        return self

    def _set_results(
        self, U: np.ndarray, s: np.ndarray, V: np.ndarray, r: np.ndarray, c: np.ndarray,
        total: float, row_inertia: np.ndarray, col_inertia: np.ndarray,
    ) -> None:
        sr, sc = np.sqrt(r), np.sqrt(c)
        self.eigenvalues_ = s**2
        self.total_inertia_ = total
        self.explained_inertia_ratio_ = self.eigenvalues_ / total
        self.row_masses_, self.column_masses_ = r, c
        self.row_standard_coordinates_ = U / sr[:, None]
        self.column_standard_coordinates_ = V / sc[:, None]
        self.row_coordinates_ = self.row_standard_coordinates_ * s
        self.column_coordinates_ = self.column_standard_coordinates_ * s
        self.row_inertias_, self.column_inertias_ = row_inertia, col_inertia
        self.row_cos2_ = _cos2(U, s, row_inertia)
        self.column_cos2_ = _cos2(V, s, col_inertia)
        # last use of U and V (fresh arrays of the fit): 100 u^2 in place saves one copy
        U **= 2
        U *= 100.0
        V **= 2
        V *= 100.0
        self.row_contributions_, self.column_contributions_ = U, V
        self.n_components_ = s.shape[0]

    def _profiles_times(self, X: ArrayLike, standard: np.ndarray, axis: int) -> np.ndarray:
        """Profiles of the rows (axis 0) or columns (axis 1) of the table `X` times
        `standard` coordinates (the transition formula), from `X` in power-of-two units."""
        counts = counts_table(X, prefer_sparse=False)
        sums = counts.row_sums if axis == 0 else counts.column_sums
        refuse_empty(sums, X, axis)
        table = counts.table if axis == 0 else counts.table.T
        return np.asarray(table @ standard) / sums[:, None]

    def transform(self, X: ArrayLike) -> Any:
        r"""Principal coordinates of the rows of `X` as supplementary rows: each row's
        profile times ``column_standard_coordinates_`` (the transition formula).

        Raises
        ------
        ValueError
            A negative count, a row summing to 0 (it has no profile), or a different
            number of columns than the fitted table.
        """
        self._require_fitted()
        data = self._check_input(X)
        return self._wrap_output(self._profiles_times(data, self.column_standard_coordinates_, 0), X)

    def transform_columns(self, X: ArrayLike) -> np.ndarray:
        r"""Principal coordinates of supplementary columns (FactoMineR's ``col.sup``).

        `X` holds one or more columns of counts on the fitted table's a rows (a x m:
        an array, a DataFrame, a Series or sparse). A DataFrame or Series is matched
        to the fitted rows by its index (reordered if need be; another set of labels
        is refused), an array by position. Each column's profile over the rows times
        ``row_standard_coordinates_``:

        .. math:: \mathbf y = \frac{\mathbf h^\top}{\mathbf h^\top\mathbf 1}\, \Gamma_{\mathrm r} .

        Returns
        -------
        ndarray of shape (m, k)

        Raises
        ------
        ValueError
            A negative count, a column summing to 0, not a rows, or a DataFrame whose
            index is not a reordering of the fitted table's (of 0..a-1 if the fit saw
            an array).
        """
        self._require_fitted()
        I = self.row_masses_.shape[0]
        X = aligned_rows(X, self._row_index, I, "table's rows")
        shape = getattr(X, "shape", None) or np.shape(X)
        if len(shape) != 2 or shape[0] != I:
            raise ValueError(
                f"X must hold supplementary columns on the fitted table's {I} rows "
                f"(shape ({I}, m)), got shape {tuple(shape)}"
            )
        return self._profiles_times(X, self.row_standard_coordinates_, 1)


class SupplementaryCategories(NamedTuple):
    """Supplementary categorical columns placed on an MCA's axes
    (:meth:`MCA.supplementary_categories`)."""

    names: np.ndarray  #: (J_sup,) as ``MCA.category_names_``, distinct from the active names
    coordinates: np.ndarray  #: (J_sup, k) principal coordinates (FactoMineR's ``quali.sup$coord``)
    eta2: np.ndarray  #: (Q_sup, k) squared correlation ratios (``quali.sup$eta2``)


class MCA(EstimatorBase):
    r"""Multiple correspondence analysis of categorical columns (FactoMineR's
    conventions).

    The CA of the n x J indicator matrix Z of the p columns (one indicator column per
    category; a row has p ones). With row masses 1/n and column masses
    :math:`c_j = n_j/(np)` (:math:`n_j` rows in category j), the principal inertias
    are the eigenvalues of

    .. math:: E_Z^\top E_Z = D_{\mathbf c}^{-1/2}\Big(\frac{Z^\top Z}{np^2} - \mathbf c\mathbf c^\top\Big)D_{\mathbf c}^{-1/2},

    at most J - p of them non-zero, summing to :math:`(J - p)/p`. Row principal
    coordinates are :math:`Y_{\mathrm r} = (Z/p)\,\Gamma_{\mathrm c}` (the transition
    formula: a row sits at the average of its categories' standard coordinates
    :math:`\Gamma_{\mathrm c} = D_{\mathbf c}^{-1/2}V_k`), category coordinates
    :math:`Y_{\mathrm c} = \Gamma_{\mathrm c}\Sigma_k`. The raw inertias understate the
    quality of the map; Benzécri's and Greenacre's corrections, for the axes with
    :math:`\lambda_s > 1/p`, are

    .. math::

        \tilde\lambda_s = \Big(\frac{p}{p-1}\Big)^2\Big(\lambda_s - \frac1p\Big)^2

    and the share of axis s is

    .. math::

        \text{Benzécri: } \frac{\tilde\lambda_s}{\sum_{t} \tilde\lambda_t},
        \qquad
        \text{Greenacre: } \frac{\tilde\lambda_s}{\frac{p}{p-1}\big(\sum_t \lambda_t^2
        - \frac{J-p}{p^2}\big)} ,

    Greenacre's denominator being the average inertia of the cross-tables of pairs of
    columns (computed from them). Memory is :math:`O(np + Jk)`: with few categories
    every inertia comes from the J x J Burt matrix, with many (an identifier-like
    column) the leading ones from a Krylov method on the sparse Z.

    Parameters
    ----------
    n_components : int, default 2
        k, with 1 <= k <= J - p (and k < n).
    ventilation : float, default 0.0
        FactoMineR's ``level.ventil``: in each column, the rows of a category chosen
        by fewer than this share of the rows are given, at random, one of the column's
        other categories (in proportion to their counts), so that a category of a few
        rows cannot make an axis of its own. A column left with one category that is
        not rare (a binary column) is left as it is, with a warning.
    random_state : None, int or numpy Generator, default None
        The draws of the ventilation (unused without it).

    Attributes
    ----------
    categories_ : list of ndarrays
        The categories of each column, in order (sorted values; a pandas
        categorical column keeps its categories' order; unused and ventilated
        categories dropped).
    category_names_ : ndarray of str objects, shape (J,)
        FactoMineR's names: the category's value, written ``"<column>_<category>"``
        for every category of a column that shares a value with another column
        (column names from a DataFrame, else ``x0``, ``x1``...); if names still
        coincide, ``"<column>=<category!r>"`` for all.
    category_counts_ : ndarray of shape (J,)
        :math:`n_j`.
    eigenvalues_ : ndarray of shape (k,)
        Principal inertias :math:`\lambda_s` (FactoMineR's ``eig[, 1]``).
    all_eigenvalues_ : ndarray
        Every principal inertia (min(J - p, n - 1) of them, the zero ones included)
        when J is small (J at most 1024, or :math:`J^2 \le np`);
        otherwise the leading ones, down to the first at or below 1/p.
    total_inertia_ : float
        (J - p) / p.
    explained_inertia_ratio_ : ndarray of shape (k,)
    adjusted_eigenvalues_ : ndarray
        :math:`\tilde\lambda_s` for every axis with :math:`\lambda_s > 1/p`.
    benzecri_ratio_, greenacre_ratio_ : ndarrays, same shape
        The two corrected proportions of inertia above.
    row_coordinates_ : ndarray of shape (n, k)
        ``ind$coord``.
    row_contributions_ : ndarray of shape (n, k)
        Percent of each axis's inertia that each individual provides (mass 1/n),
        :math:`100\,y_{is}^2/(n\lambda_s)` (``ind$contrib``); each column sums to 100.
    row_cos2_ : ndarray of shape (n, k)
        :math:`y_{is}^2/d_i^2` (``ind$cos2``), with
        :math:`d_i^2 = \frac{n}{p}\sum_{j \ni i} \frac{1}{n_j} - 1` the squared
        chi-square distance of individual i to the centroid (the sum over its p
        categories); over all axes they sum to 1.
    column_coordinates_ : ndarray of shape (J, k)
        Principal coordinates of the categories (``var$coord``).
    column_standard_coordinates_ : ndarray of shape (J, k)
    column_masses_ : ndarray of shape (J,)
    column_contributions_ : ndarray of shape (J, k)
        Percent (``var$contrib``).
    column_cos2_ : ndarray of shape (J, k)
        ``var$cos2``: :math:`y_{js}^2 / (n/n_j - 1)`.
    eta2_ : ndarray of shape (p, k)
        Squared correlation ratio of each column with each axis's row coordinates
        (``var$eta2``): :math:`\eta^2_{qs} = \sum_{j \in q} (n_j/n)\, y_{js}^2`, the share of
        the variance :math:`\lambda_s` of the row coordinates that the column's
        categories explain (a category's principal coordinate is the mean of its rows'
        coordinates over :math:`\sqrt{\lambda_s}`).
    n_components_, n_features_in_ : int
    feature_names_in_ : ndarray of str objects
        When fitted on a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np, pcalib
    >>> X = np.array([["a", "x"], ["a", "y"], ["b", "y"], ["b", "y"], ["c", "x"]])
    >>> mca = pcalib.MCA(1).fit(X)
    >>> list(mca.category_names_)  # no value in two columns: no prefix
    ['a', 'b', 'c', 'x', 'y']
    >>> round(mca.total_inertia_, 12)  # (J - p) / p = (5 - 2) / 2
    1.5
    """

    _fit_minimum = ((2, "MCA needs 2 rows"), (1, ""))

    def __init__(self, n_components: int = 2, *, ventilation: float = 0.0, random_state: Any = None) -> None:
        self.n_components = n_components
        self.ventilation = ventilation
        self.random_state = random_state

    @property
    def _n_features_out(self) -> int:
        return self.eigenvalues_.shape[0]

    def __sklearn_tags__(self) -> Any:
        """scikit-learn's tags, with ``categorical`` and ``string`` input."""
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

    def fit(self, X: ArrayLike, y: object = None) -> MCA:
        """Fit on `X` (n rows x p categorical columns: a DataFrame, or an array of
        strings or numbers, each distinct value a category); `X` is not modified. `y`
        is ignored. Returns self.

        Raises
        ------
        ValueError
            Fewer than 2 rows, a missing value (None, NaN, NaT, ``pandas.NA``), a
            column with one category (named), or n_components above J - p. A fit
            that raises leaves the estimator unfitted.
        """
        return _fit_or_forget(self, self._fit, X)

    def _fit(self, X: ArrayLike) -> MCA:
        names = feature_names_of(X)
        self._row_index = row_index_of(X)
        cats, codes, labels = coded_columns(X, self.ventilation, self.random_state)
        Q, n = len(cats), codes[0].size
        sizes = [c.size for c in cats]
        J = sum(sizes)
        k = _check_k(
            self.n_components, min(J - Q, n - 1), f"J - Q = {J} - {Q}, the number of non-trivial axes, and n - 1"
        )
        Z = indicator(codes, sizes)
        counts = np.asarray(Z.sum(axis=0)).ravel()
        c = counts / (n * Q)
        spectrum, greenacre = mca_spectrum(Z, codes, sizes, c, k)
        lam = spectrum.eigenvalues
        if not lam[k - 1] > J * _EPS:
            rank = int(np.sum(lam > J * _EPS))
            raise ValueError(
                f"the indicator matrix has {rank} non-zero principal inertia(s) (some columns "
                f"are the same partition of the rows), so n_components={k} axes are not "
                f"defined; choose n_components <= {rank}"
            )
        V = spectrum.axes * axis_signs(spectrum.axes.T)
        s = np.sqrt(lam[:k])
        gamma = V / np.sqrt(c)[:, None]
        self.categories_ = cats
        self.category_names_ = category_names(labels, cats)
        self.category_counts_ = counts
        self.all_eigenvalues_ = lam
        self.eigenvalues_ = lam[:k]
        self.total_inertia_ = (J - Q) / Q
        self.explained_inertia_ratio_ = self.eigenvalues_ / self.total_inertia_
        self.adjusted_eigenvalues_, self.benzecri_ratio_, self.greenacre_ratio_ = corrected_ratios(
            lam, Q, J, greenacre
        )
        self.column_masses_ = c
        self.column_standard_coordinates_ = gamma
        self.column_coordinates_ = gamma * s
        self.column_contributions_ = 100.0 * V**2
        self.column_cos2_ = self.column_coordinates_**2 / (n / counts - 1.0)[:, None]
        self.eta2_ = correlation_ratios(self.column_coordinates_, counts / n, sizes)
        self.row_coordinates_ = self._project(Z)
        self.row_contributions_, self.row_cos2_ = _row_quality(self.row_coordinates_, self.eigenvalues_, Z, counts, Q)
        self.n_components_ = k
        if names is not None:
            self.feature_names_in_ = names
        self.n_features_in_ = Q
        return self

    def _project(self, Z: scipy.sparse.csr_matrix) -> np.ndarray:
        gamma = self.column_standard_coordinates_
        Q = len(self.categories_)
        return np.asarray(Z @ gamma) / Q - self.column_masses_ @ gamma

    def _codes_of(self, X: ArrayLike, categories: list[np.ndarray] | None) -> tuple[list[np.ndarray], list[np.ndarray], list[str]]:
        columns = columns_of(X)
        known: list[np.ndarray | None] = list(categories) if categories is not None else [None] * len(columns.labels)
        coded = [code_column(v, lab, cats) for v, lab, cats in zip(columns.values, columns.labels, known)]
        return [c for c, _ in coded], [codes for _, codes in coded], columns.labels

    def transform(self, X: ArrayLike) -> Any:
        r"""Row principal coordinates of the rows of `X` (supplementary individuals):
        the mean of their categories' standard coordinates,
        :math:`\mathbf f = (\mathbf z/Q)^\top D_c^{-1/2}V_k`.

        Raises
        ------
        ValueError
            A category not seen by ``fit`` (named with its column), a missing value,
            or a different number of columns.
        """
        self._require_fitted()
        check_feature_names("MCA", getattr(self, "feature_names_in_", None), feature_names_of(X))
        n_columns = len(columns_of(X).labels)
        if n_columns != self.n_features_in_:
            raise ValueError(
                f"X has {n_columns} features, but MCA is expecting {self.n_features_in_} features as input"
            )
        _, codes, _ = self._codes_of(X, self.categories_)
        return self._wrap_output(self._project(indicator(codes, [c.size for c in self.categories_])), X)

    def supplementary_categories(self, X: ArrayLike) -> SupplementaryCategories:
        r"""Place supplementary categorical columns (FactoMineR's ``quali.sup``).

        `X` holds one or more categorical columns on the fitted rows: a DataFrame or
        Series, matched to the fitted rows by its index (reordered if need be; another
        set of labels is refused), or an array, matched by position. Category j sits at the mean of its rows' principal coordinates
        divided by :math:`\sqrt{\lambda_s}` (where an active category would be, by the
        transition formula); the squared correlation ratio of column q with axis s is
        :math:`\eta^2_{qs} = \sum_{j \in q} (n_j/n)\,\bar f_{js}^2 / \lambda_s`, the
        share of the variance :math:`\lambda_s` of the row coordinates that the
        column's categories explain.

        Returns
        -------
        SupplementaryCategories
            ``names``, ``coordinates`` (J_sup, k) and ``eta2`` (Q_sup, k).

        Raises
        ------
        ValueError
            Not n rows, a missing value, or a DataFrame whose index is not a
            reordering of the fitted one (of 0..n-1 if the fit saw an array).
        """
        self._require_fitted()
        n = self.row_coordinates_.shape[0]
        X = aligned_rows(X, self._row_index, n, "individuals")
        if columns_of(X).n_rows != n:
            raise ValueError(
                f"X must hold supplementary columns on the fitted {n} rows, got "
                f"{columns_of(X).n_rows} rows"
            )
        cats, codes, labels = self._codes_of(X, None)
        sizes = [c.size for c in cats]
        Z = indicator(codes, sizes)
        counts = np.asarray(Z.sum(axis=0)).ravel()
        means = np.asarray(Z.T @ self.row_coordinates_) / counts[:, None]
        coordinates = means / np.sqrt(self.eigenvalues_)
        eta2 = correlation_ratios(coordinates, counts / n, sizes)  # = sum (n_j/n) mean^2 / lambda
        return SupplementaryCategories(category_names(labels, cats, self.category_names_), coordinates, eta2)
