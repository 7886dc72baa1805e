r"""Correspondence analysis and multiple correspondence analysis (chapter
*Categories, counts and compositions*).

Correspondence analysis (CA) of an I x J table of counts :math:`N` with total
:math:`n` works with the correspondence matrix :math:`P = N / n`, its row and column
masses :math:`\mathbf r = P\mathbf 1`, :math:`\mathbf c = P^\top\mathbf 1` and the
standardized residuals

.. math::

    S = D_r^{-1/2}\,(P - \mathbf r\mathbf c^\top)\,D_c^{-1/2}
      = U \Sigma V^\top ,

whose squared entries sum to the total inertia :math:`\chi^2 / n`. The principal
inertias are :math:`\lambda_k = \sigma_k^2`; the principal coordinates of the rows and
columns are :math:`F = D_r^{-1/2} U \Sigma` and :math:`G = D_c^{-1/2} V \Sigma`, the
standard coordinates :math:`D_r^{-1/2} U` and :math:`D_c^{-1/2} V`. Contributions
(percent) are :math:`100\, r_i f_{ik}^2 / \lambda_k = 100\, u_{ik}^2`, and the squared
cosines :math:`f_{ik}^2 / d_i^2` with :math:`d_i^2 = \sum_j s_{ij}^2 / r_i` the
chi-square distance of row profile i to the average profile. These are FactoMineR's
definitions (``CA``: ``eig``, ``row$coord``, ``row$contrib``, ``row$cos2``, ...).

Sign convention: each right singular vector :math:`\mathbf v_k` is flipped so that its
entry of largest absolute value is positive (pcalib's convention for axes; FactoMineR
leaves the sign to LAPACK).

Multiple correspondence analysis (MCA) of Q categorical columns is the CA of the n x J
indicator matrix :math:`Z` (one column per category, J categories in all).

The engine is in private modules: :mod:`pcalib._ca_tables` reads a table in exact
power-of-two units, :mod:`pcalib._ca_solver` finds the leading singular triplets of
S (LAPACK for small tables, Krylov methods on dense or sparse large ones),
:mod:`pcalib._mca_coding` codes categorical columns and :mod:`pcalib._mca_fit` gives
MCA's spectrum and corrected inertias.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike

from ._ca_solver import residual_svd
from ._ca_tables import counts_table, refuse_empty
from ._frames import check_feature_names, feature_names_of
from ._mca_coding import category_names, code_column, columns_of, indicator, ventilate
from ._mca_fit import corrected_ratios, mca_spectrum
from ._signs import axis_signs
from ._sklearn_compat import EstimatorBase
from ._tables import row_index_of
from ._validation import check_random_state

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


class CA(EstimatorBase):
    r"""Correspondence analysis of a contingency table (FactoMineR's conventions).

    The SVD :math:`S = U\Sigma V^\top` of the standardized residuals
    :math:`S = D_r^{-1/2}(P - \mathbf r\mathbf c^\top)D_c^{-1/2}`,
    :math:`P = N/n` (module docstring). The rows of the fitted table are the
    individuals, its columns the features: ``transform`` places new rows
    (supplementary rows with the same columns) by the transition formula

    .. math:: \mathbf f = \frac{\mathbf h^\top}{\mathbf h^\top\mathbf 1}\, D_c^{-1/2} V_k ,

    the profile of the row times the column standard coordinates; on the fitted rows
    it gives their principal coordinates. :meth:`transform_columns` places
    supplementary columns the same way. The table is read in exact power-of-two units
    (CA does not change when the table is multiplied by a constant), so counts of
    :math:`10^{-300}` or :math:`10^{300}` give the same axes. For small tables the SVD
    is LAPACK's; for large ones only the k leading triplets are found, by a block
    Krylov method on a dense table (S formed in the fit's own copy) or by ARPACK on a
    ``scipy.sparse`` one (never densified: S is applied as an operator). A dense
    table that is at least 75% zeros is fitted as a sparse one.

    Parameters
    ----------
    n_components : int, default 2
        k, with 1 <= k <= min(I, J) - 1 (the rank of S is at most that).

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (k,)
        Principal inertias :math:`\lambda_1 \ge \dots \ge \lambda_k` (FactoMineR's
        ``eig[, 1]``).
    total_inertia_ : float
        :math:`\sum_{ij} s_{ij}^2 = \chi^2 / n`, the sum of all principal inertias.
    explained_inertia_ratio_ : ndarray of shape (k,)
        :math:`\lambda_k` / ``total_inertia_``.
    row_masses_, column_masses_ : ndarrays of shape (I,) and (J,)
        :math:`\mathbf r` and :math:`\mathbf c`.
    row_coordinates_, column_coordinates_ : ndarrays of shape (I, k) and (J, k)
        Principal coordinates F and G (``row$coord``, ``col$coord``).
    row_standard_coordinates_, column_standard_coordinates_ : ndarrays
        :math:`D_r^{-1/2}U_k` and :math:`D_c^{-1/2}V_k`.
    row_contributions_, column_contributions_ : ndarrays
        Percent of each axis's inertia, :math:`100\,u_{ik}^2` and :math:`100\,v_{jk}^2`
        (``row$contrib``).
    row_cos2_, column_cos2_ : ndarrays
        :math:`f_{ik}^2 / d_i^2` (``row$cos2``); a row whose profile is the average
        profile (:math:`d_i = 0`) has cos2 0 on every axis.
    row_inertias_, column_inertias_ : ndarrays of shape (I,) and (J,)
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
        """Fit on the table `X` (I x J counts, array, DataFrame or sparse; bool is read
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

        `X` holds one or more columns of counts on the fitted table's I rows (I x m:
        an array, a DataFrame or sparse). Each column's profile over the rows times
        ``row_standard_coordinates_``:

        .. math:: \mathbf g = \frac{\mathbf h^\top}{\mathbf h^\top\mathbf 1}\, D_r^{-1/2} U_k .

        Returns
        -------
        ndarray of shape (m, k)

        Raises
        ------
        ValueError
            A negative count, a column summing to 0, or not I rows.
        """
        self._require_fitted()
        I = self.row_masses_.shape[0]
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

    names: np.ndarray  #: (J_sup,) ``"<column>_<category>"``
    coordinates: np.ndarray  #: (J_sup, k) principal coordinates (FactoMineR's ``quali.sup$coord``)
    eta2: np.ndarray  #: (Q_sup, k) squared correlation ratios (``quali.sup$eta2``)


class MCA(EstimatorBase):
    r"""Multiple correspondence analysis of categorical columns (FactoMineR's
    conventions).

    The CA of the n x J indicator matrix Z of the Q columns (one indicator column per
    category; a row has Q ones). With row masses 1/n and column masses
    :math:`c_j = n_j/(nQ)` (:math:`n_j` rows in category j), the principal inertias
    are the eigenvalues of

    .. math:: S^\top S = D_c^{-1/2}\Big(\frac{Z^\top Z}{nQ^2} - \mathbf c\mathbf c^\top\Big)D_c^{-1/2},

    at most J - Q of them non-zero, summing to :math:`(J - Q)/Q`. Row principal
    coordinates are :math:`F = (Z/Q)\,D_c^{-1/2}V_k` (the transition formula: a row
    sits at the average of its categories' standard coordinates), category
    coordinates :math:`G = D_c^{-1/2}V_k\Sigma_k`. The raw inertias understate the
    quality of the map; Benzécri's and Greenacre's corrections, for the axes with
    :math:`\lambda_s > 1/Q`, are

    .. math::

        \tilde\lambda_s = \Big(\frac{Q}{Q-1}\Big)^2\Big(\lambda_s - \frac1Q\Big)^2

    and the share of axis s is

    .. math::

        \text{Benzécri: } \frac{\tilde\lambda_s}{\sum_{t} \tilde\lambda_t},
        \qquad
        \text{Greenacre: } \frac{\tilde\lambda_s}{\frac{Q}{Q-1}\big(\sum_t \lambda_t^2
        - \frac{J-Q}{Q^2}\big)} ,

    Greenacre's denominator being the average inertia of the cross-tables of pairs of
    columns (computed from them). Memory is :math:`O(nQ + Jk)`: with few categories
    every inertia comes from the J x J Burt matrix, with many (an identifier-like
    column) the leading ones from a Krylov method on the sparse Z.

    Parameters
    ----------
    n_components : int, default 2
        k, with 1 <= k <= J - Q (and k < n).
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
        ``"<column>_<category>"`` (column names from a DataFrame, else ``x0``,
        ``x1``...); ``"<column>=<category!r>"`` if those would coincide.
    category_counts_ : ndarray of shape (J,)
        :math:`n_j`.
    eigenvalues_ : ndarray of shape (k,)
        Principal inertias :math:`\lambda_s` (FactoMineR's ``eig[, 1]``).
    all_eigenvalues_ : ndarray
        Every principal inertia (min(J - Q, n - 1) of them, the zero ones included)
        when J is small (J at most 1024, or :math:`J^2 \le nQ`);
        otherwise the leading ones, down to the first at or below 1/Q.
    total_inertia_ : float
        (J - Q) / Q.
    explained_inertia_ratio_ : ndarray of shape (k,)
    adjusted_eigenvalues_ : ndarray
        :math:`\tilde\lambda_s` for every axis with :math:`\lambda_s > 1/Q`.
    benzecri_ratio_, greenacre_ratio_ : ndarrays, same shape
        The two corrected proportions of inertia above.
    row_coordinates_ : ndarray of shape (n, k)
        ``ind$coord``.
    column_coordinates_ : ndarray of shape (J, k)
        Principal coordinates of the categories (``var$coord``).
    column_standard_coordinates_ : ndarray of shape (J, k)
    column_masses_ : ndarray of shape (J,)
    column_contributions_ : ndarray of shape (J, k)
        Percent (``var$contrib``).
    column_cos2_ : ndarray of shape (J, k)
        ``var$cos2``: :math:`g_{jk}^2 / (n/n_j - 1)`.
    eta2_ : ndarray of shape (Q, k)
        Squared correlation ratio of each column with each axis's row coordinates
        (``var$eta2``): :math:`\eta^2_{qs} = \sum_{j \in q} (n_j/n)\, g_{js}^2`, the share of
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
    >>> list(mca.category_names_)
    ['x0_a', 'x0_b', 'x0_c', 'x1_x', 'x1_y']
    >>> round(mca.total_inertia_, 12)  # (J - Q) / Q = (5 - 2) / 2
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
        """Fit on `X` (n rows x Q categorical columns: a DataFrame, or an array of
        strings or numbers, each distinct value a category); `X` is not modified. `y`
        is ignored. Returns self.

        Raises
        ------
        ValueError
            Fewer than 2 rows, a missing value (None, NaN, NaT, ``pandas.NA``), a
            column with one category (named), or n_components above J - Q. A fit
            that raises leaves the estimator unfitted.
        """
        return _fit_or_forget(self, self._fit, X)

    def _coded(self, X: ArrayLike) -> tuple[list[np.ndarray], list[np.ndarray], list[str]]:
        """Categories and codes of each column of `X`, ventilated if asked."""
        level = self.ventilation
        if isinstance(level, bool) or not isinstance(level, numbers.Real) or not 0 <= level < 1:
            raise ValueError(f"ventilation must be a number in [0, 1), got {level!r}")
        rng = check_random_state(self.random_state) if level > 0 else None
        columns = columns_of(X)
        Q, n = len(columns.labels), columns.n_rows
        if Q < 1:
            raise ValueError(f"X has 0 feature(s) (shape=({n}, 0)) while a minimum of 1 is required by MCA")
        if n < 2:
            raise ValueError(f"X has {n} sample(s) (shape=({n}, {Q})) while a minimum of 2 is required by MCA")
        cats, codes = [], []
        for values, label in zip(columns.values, columns.labels):
            categories, coded = code_column(values, label)
            if rng is not None:
                coded, kept = ventilate(coded, categories.size, float(level), rng)
                if kept.size == categories.size and np.bincount(coded).min() < level * n:
                    warnings.warn(
                        f"X column {label!r} has a rare category but fewer than two others: "
                        "ventilation leaves it as it is (as FactoMineR does); consider "
                        "making the column supplementary", RuntimeWarning, stacklevel=4,
                    )
                categories = categories[kept]
            if categories.size < 2:
                raise ValueError(
                    f"X column {label!r} has a single category ({categories.tolist()[0]!r}): it "
                    "separates no rows; drop it"
                )
            cats.append(categories)
            codes.append(coded)
        return cats, codes, columns.labels

    def _fit(self, X: ArrayLike) -> MCA:
        names = feature_names_of(X)
        cats, codes, labels = self._coded(X)
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
        self.eta2_ = self._correlation_ratios(self.column_coordinates_, counts / n, sizes)
        self.row_coordinates_ = self._project(Z)
        self.n_components_ = k
        if names is not None:
            self.feature_names_in_ = names
        self._row_index = row_index_of(X)
        self.n_features_in_ = Q
        return self

    def _correlation_ratios(self, coordinates: np.ndarray, shares: np.ndarray, sizes: list[int]) -> np.ndarray:
        r""":math:`\sum_{j \in q} (n_j/n)\, g_{js}^2` for each column q."""
        weighted = shares[:, None] * coordinates**2
        return np.add.reduceat(weighted, np.cumsum([0] + sizes[:-1]), axis=0)

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

        `X` holds one or more categorical columns on the fitted rows (n rows, in the
        same order). Category j sits at the mean of its rows' principal coordinates
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
            Not n rows, or a missing value.
        """
        self._require_fitted()
        n = self.row_coordinates_.shape[0]
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
        eta2 = self._correlation_ratios(coordinates, counts / n, sizes)  # = sum (n_j/n) mean^2 / lambda
        return SupplementaryCategories(category_names(labels, cats), coordinates, eta2)
