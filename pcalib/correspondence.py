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
indicator matrix :math:`Z` (one column per category, J categories in all), computed
here from the J x J matrix :math:`S^\top S = D_c^{-1/2}(B / (nQ^2) - \mathbf c
\mathbf c^\top) D_c^{-1/2}`, B = Z^T Z the Burt matrix, so that n can be large.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import scipy.sparse
import scipy.sparse.linalg
from numpy.typing import ArrayLike

from ._frames import feature_names_of
from ._signs import axis_signs
from ._sklearn_compat import EstimatorBase
from ._validation import NotFittedError, as_data_matrix

__all__ = ["CA", "MCA"]

_EPS = float(np.finfo(np.float64).eps)


def _check_k(k: object, upper: int, what: str) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"n_components must be an integer, got {k!r}")
    if not 1 <= int(k) <= upper:
        raise ValueError(
            f"n_components must satisfy 1 <= n_components <= {upper} ({what}), got {int(k)}"
        )
    return int(k)


def _labels(X: Any, axis: int) -> list[str] | None:
    """Row (axis 0) or column (axis 1) labels of a DataFrame, for error messages."""
    if not (hasattr(X, "iloc") and hasattr(X, "columns")):  # not a DataFrame
        return None
    return [str(v) for v in (X.index if axis == 0 else X.columns)]


def _where(i: int, j: int, X: Any) -> str:
    rows, cols = _labels(X, 0), _labels(X, 1)
    named = f" (row {rows[i]!r}, column {cols[j]!r})" if rows and cols else ""
    return f"X[{i}, {j}]{named}"


def _counts(X: Any, name: str = "X") -> np.ndarray | scipy.sparse.csr_matrix:
    """A table of non-negative counts: a float64 copy if dense; if sparse, a CSR float64
    matrix in canonical form (`X` itself when it already is one: it is only read).

    Raises
    ------
    TypeError, ValueError
        Not numeric, not 2-D, NaN or infinity, a negative entry (named by position).
    """
    if scipy.sparse.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D, got shape {X.shape}")
        if np.iscomplexobj(X.data) or X.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real counts, got dtype {X.dtype}")
        if X.format == "csr" and X.has_canonical_format:  # shares X's index arrays
            arr = X if X.dtype == np.float64 else scipy.sparse.csr_matrix(
                (X.data.astype(np.float64), X.indices, X.indptr), shape=X.shape)
        else:
            arr = scipy.sparse.csr_matrix(X, dtype=np.float64, copy=True)
            arr.sum_duplicates()
        if not np.all(np.isfinite(arr.data)):
            raise ValueError(f"{name} contains NaN or infinity; all counts must be finite")
        bad = np.flatnonzero(arr.data < 0)
        if bad.size:
            i = int(np.searchsorted(arr.indptr, bad[0], side="right") - 1)
            j = int(arr.indices[bad[0]])
            raise ValueError(
                f"Negative values in data: {name} must hold non-negative counts, got "
                f"{name}[{i}, {j}] = {arr.data[bad[0]]:g}"
            )
        return arr
    arr = as_data_matrix(X, name)
    negative = np.argwhere(arr < 0)
    if negative.size:
        i, j = (int(v) for v in negative[0])
        raise ValueError(
            f"Negative values in data: {name} must hold non-negative counts, got "
            f"{_where(i, j, X)} = {arr[i, j]:g}"
        )
    return arr


def _empty_line(sums: np.ndarray, X: Any, axis: int, name: str = "X") -> None:
    empty = np.flatnonzero(~(sums > 0))
    if empty.size:
        what = "row" if axis == 0 else "column"
        labels = _labels(X, axis)
        label = f" ({labels[empty[0]]!r})" if labels else ""
        raise ValueError(
            f"{what} {int(empty[0])}{label} of {name} sums to 0: an empty {what} has no profile; "
            f"remove it ({empty.size} empty {what}(s) in all)"
        )


class CA(EstimatorBase):
    r"""Correspondence analysis of a contingency table (FactoMineR's conventions).

    The SVD :math:`S = U\Sigma V^\top` of the standardized residuals
    :math:`S = D_r^{-1/2}(P - \mathbf r\mathbf c^\top)D_c^{-1/2}`,
    :math:`P = N/n` (module docstring). The rows of the fitted table are the
    individuals, its columns the features: ``transform`` places new rows
    (supplementary rows with the same columns) by the transition formula

    .. math:: \mathbf f = \frac{\mathbf h^\top}{\mathbf h^\top\mathbf 1}\, D_c^{-1/2} V_k ,

    the profile of the row times the column standard coordinates; on the fitted rows
    it gives their principal coordinates. A ``scipy.sparse`` table is never densified:
    ARPACK (``scipy.sparse.linalg.svds``) works on :math:`S` as an operator,
    :math:`S\mathbf x = A\mathbf x - \sqrt{\mathbf r}(\sqrt{\mathbf c}^\top\mathbf x)`
    with the sparse :math:`A = D_r^{-1/2} P D_c^{-1/2}`.

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
        """Fit on the table `X` (I x J counts, array, DataFrame or sparse); `X` is not
        modified. `y` is ignored. Returns self.

        Raises
        ------
        ValueError
            A negative count (named by position), an empty row or column, fewer than
            2 rows or columns, n_components out of range, or a table whose rows and
            columns are independent beyond axis n_components (no such axis).
        """
        data = self._remember_input(X)
        N = _counts(data)
        I, J = N.shape
        for count, (least, why), what in zip((I, J), self._fit_minimum, ("row", "column")):
            if count < least:
                raise ValueError(f"X has {count} {what}(s) (shape={N.shape}): {why}")
        k = _check_k(self.n_components, min(I, J) - 1, f"the rank of a {I} x {J} table is at most {min(I, J) - 1}")
        row_sums = np.asarray(N.sum(axis=1)).ravel()
        col_sums = np.asarray(N.sum(axis=0)).ravel()
        _empty_line(row_sums, X, 0)
        _empty_line(col_sums, X, 1)
        n = float(row_sums.sum())
        r, c = row_sums / n, col_sums / n
        sr, sc = np.sqrt(r), np.sqrt(c)
        if scipy.sparse.issparse(N):
            U, s, V, total, row_inertia, col_inertia = _sparse_svd(N, n, sr, sc, k)
        else:
            S = (N / n - np.outer(r, c)) / np.outer(sr, sc)
            U, s, Vt = np.linalg.svd(S, full_matrices=False)
            U, s, V = U[:, :k].copy(), s[:k], Vt[:k].T.copy()
            S2 = S * S
            total = float(S2.sum())
            row_inertia, col_inertia = S2.sum(axis=1), S2.sum(axis=0)
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

    def transform(self, X: ArrayLike) -> Any:
        r"""Principal coordinates of the rows of `X` as supplementary rows: each row's
        profile times ``column_standard_coordinates_`` (the transition formula).

        Raises
        ------
        ValueError
            A negative count, a row summing to 0 (it has no profile), or a different
            number of columns than the fitted table.
        """
        if not hasattr(self, "eigenvalues_"):
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with "
                "appropriate arguments before using this estimator."
            )
        data = self._check_input(X)
        H = _counts(data)
        sums = np.asarray(H.sum(axis=1)).ravel()
        _empty_line(sums, X, 0)
        if scipy.sparse.issparse(H):
            F = np.asarray(H @ self.column_standard_coordinates_) / sums[:, None]
        else:
            F = (H / sums[:, None]) @ self.column_standard_coordinates_
        return self._wrap_output(F, X)


def _cos2(U: np.ndarray, s: np.ndarray, inertia: np.ndarray) -> np.ndarray:
    """Squared cosines ``(U s)**2 / inertia`` (the principal coordinates squared times
    the mass, over the mass times d**2), in one array; 0 where d = 0."""
    out = U * s
    out **= 2
    positive = inertia > 0
    out[positive] /= inertia[positive, None]
    out[~positive] = 0.0
    return out


def _sparse_svd(
    N: scipy.sparse.csr_matrix, n: float, sr: np.ndarray, sc: np.ndarray, k: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, np.ndarray, np.ndarray]:
    r"""The k leading singular triplets of E for a sparse table `N` (only read), by ARPACK
    on the operator :math:`\mathbf x \mapsto A\mathbf x - \sqrt{\mathbf r}(\sqrt{\mathbf c}^\top
    \mathbf x)`, :math:`A\mathbf x = D_r^{-1/2} N D_c^{-1/2}\mathbf x / n` applied
    without forming A; also the row, column and total inertias from
    :math:`\sum_j a_{ij}^2 - r_i` (and :math:`\|A\|_F^2 - 1` in all).
    """
    row_scale, col_scale = 1.0 / (n * sr), 1.0 / sc
    squares = N.data**2 * col_scale[N.indices] ** 2  # a_ij^2 / row_scale_i^2, entry by entry
    row_inertia = np.maximum(np.add.reduceat(squares, N.indptr[:-1]) * row_scale**2 - sr**2, 0.0)
    row_inertia[np.diff(N.indptr) == 0] = 0.0  # (reduceat repeats a value for an empty row)
    del squares
    rows_of = np.repeat(row_scale, np.diff(N.indptr))
    col_inertia = np.maximum(
        np.bincount(N.indices, weights=(N.data * rows_of) ** 2, minlength=N.shape[1]) * col_scale**2
        - sc**2,
        0.0,
    )
    del rows_of
    total = max(float(row_inertia.sum()), 0.0)
    Nt = N.T  # CSC view of the same arrays: no copy
    op = scipy.sparse.linalg.LinearOperator(
        N.shape,
        matvec=lambda x: row_scale * (N @ (col_scale * np.ravel(x))) - sr * (sc @ np.ravel(x)),
        rmatvec=lambda y: col_scale * (Nt @ (row_scale * np.ravel(y))) - sc * (sr @ np.ravel(y)),
        dtype=np.float64,
    )
    v0 = np.random.default_rng(0).standard_normal(min(N.shape))  # fixed: deterministic
    U, s, Vt = scipy.sparse.linalg.svds(op, k=k, tol=0, v0=v0, solver="arpack")
    order = np.argsort(-s, kind="stable")
    return U[:, order], s[order], Vt[order].T, total, row_inertia, col_inertia


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
        - \frac{J-Q}{Q^2}\big)} .

    Parameters
    ----------
    n_components : int, default 2
        k, with 1 <= k <= J - Q.

    Attributes
    ----------
    categories_ : list of ndarrays
        The categories of each column, in order (sorted values; a pandas
        categorical column keeps its categories' order; unused categories dropped).
    category_names_ : ndarray of str objects, shape (J,)
        ``"<column>_<category>"`` (column names from a DataFrame, else ``x0``, ``x1``...).
    category_counts_ : ndarray of shape (J,)
        :math:`n_j`.
    eigenvalues_ : ndarray of shape (k,)
        Principal inertias :math:`\lambda_s` (FactoMineR's ``eig[, 1]``).
    all_eigenvalues_ : ndarray of shape (J - Q,)
        Every principal inertia, the zero ones included.
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
    column_contributions_ : ndarray of shape (J, k)
        Percent (``var$contrib``).
    column_cos2_ : ndarray of shape (J, k)
        ``var$cos2``: :math:`g_{jk}^2 / (n/n_j - 1)`.
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

    def __init__(self, n_components: int = 2) -> None:
        self.n_components = n_components

    @property
    def _n_features_out(self) -> int:
        return self.eigenvalues_.shape[0]

    def __sklearn_tags__(self) -> Any:
        """scikit-learn's tags, with ``categorical`` and ``string`` input."""
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

    # -- input -------------------------------------------------------------------------------

    @staticmethod
    def _columns(X: Any) -> tuple[list[np.ndarray], list[str], list[np.ndarray | None]]:
        """The columns of `X` as 1-D arrays, their names, and the categories' order of
        each pandas categorical column (None for the others)."""
        names = feature_names_of(X)
        if hasattr(X, "columns") and hasattr(X, "iloc"):  # a pandas DataFrame
            cols = [X.iloc[:, j] for j in range(X.shape[1])]
            labels = [str(v) for v in X.columns]
            cols = [
                np.asarray(col.cat.categories)[col.cat.codes.to_numpy()]
                if str(col.dtype) == "category" and not (col.cat.codes.to_numpy() < 0).any()
                else col.to_numpy() for col in cols
            ]
            orders = [
                np.asarray(X.iloc[:, j].cat.categories) if str(X.iloc[:, j].dtype) == "category" else None
                for j in range(X.shape[1])
            ]
        else:
            if scipy.sparse.issparse(X):
                raise TypeError("MCA does not support sparse input: X must be a table of categories")
            arr = np.asarray(X)
            if np.iscomplexobj(arr):
                raise ValueError(f"Complex data not supported: X must hold categories, got dtype {arr.dtype}")
            if arr.ndim != 2:
                raise ValueError(
                    f"X must be a 2-D array of shape (n_samples, n_features), got {arr.ndim} "
                    f"dimension(s) with shape {arr.shape}. Reshape your data: X.reshape(-1, 1) "
                    "if it has a single feature, X.reshape(1, -1) if it is a single sample"
                )
            cols = [arr[:, j] for j in range(arr.shape[1])]
            labels = [f"x{j}" for j in range(arr.shape[1])]
            orders = [None] * arr.shape[1]
        if names is not None:
            labels = [str(v) for v in names]
        return cols, labels, orders

    @staticmethod
    def _check_values(values: np.ndarray, label: str) -> np.ndarray:
        """Refuse missing values and infinities in a column; numbers stay numbers."""
        if values.dtype.kind == "f" and not np.all(np.isfinite(values)):
            raise ValueError(
                f"X column {label!r} contains NaN or infinity: MCA needs a category in every "
                "entry (recode missing values as a category of their own)"
            )
        if values.dtype == object:
            for v in values:
                if v is None or (isinstance(v, float) and not np.isfinite(v)) or repr(v) in ("<NA>", "NaT"):
                    raise ValueError(
                        f"X column {label!r} contains a missing value ({v!r}): MCA needs a category "
                        "in every entry (recode missing values as a category of their own)"
                    )
        return values

    @staticmethod
    def _categories(values: np.ndarray, label: str, order: np.ndarray | None) -> np.ndarray:
        try:
            present = np.unique(values)
        except TypeError:
            raise TypeError(
                f"X column {label!r} mixes values that cannot be compared (e.g. numbers and "
                "strings): convert the column to one type, e.g. str"
            ) from None
        if order is not None:
            present = np.asarray([v for v in order if v in set(present.tolist())], dtype=order.dtype)
        return present

    @staticmethod
    def _codes(values: np.ndarray, categories: np.ndarray, label: str) -> np.ndarray:
        lookup = {v: i for i, v in enumerate(categories.tolist())}
        try:
            return np.fromiter((lookup[v] for v in values.tolist()), dtype=np.int64, count=values.size)
        except KeyError as exc:
            raise ValueError(
                f"X column {label!r} has the category {exc.args[0]!r}, not seen by fit "
                f"(fitted categories: {categories.tolist()[:10]})"
            ) from None

    def _indicator(self, codes: list[np.ndarray]) -> scipy.sparse.csr_matrix:
        n, Q = codes[0].size, len(codes)
        offsets = np.cumsum([0] + [c.size for c in self.categories_])
        indices = (np.column_stack(codes) + offsets[:-1]).ravel()
        indptr = np.arange(0, n * Q + 1, Q)
        return scipy.sparse.csr_matrix((np.ones(n * Q), indices, indptr), shape=(n, int(offsets[-1])))

    # -- fit ---------------------------------------------------------------------------------

    def fit(self, X: ArrayLike, y: object = None) -> MCA:
        """Fit on `X` (n rows x Q categorical columns: a DataFrame, or an array of
        strings or numbers, each distinct value a category); `X` is not modified. `y`
        is ignored. Returns self.

        Raises
        ------
        ValueError
            Fewer than 2 rows, a missing value, a column with one category (named),
            or n_components above J - Q.
        """
        names = feature_names_of(X)
        cols, labels, orders = self._columns(X)
        Q = len(cols)
        n = cols[0].size if Q else 0
        if Q < 1:
            raise ValueError(f"X has 0 feature(s) (shape=({n}, 0)) while a minimum of 1 is required by MCA")
        if n < 2:
            raise ValueError(f"X has {n} sample(s) (shape=({n}, {Q})) while a minimum of 2 is required by MCA")
        cats, codes = [], []
        for values, label, order in zip(cols, labels, orders):
            values = self._check_values(values, label)
            categories = self._categories(values, label, order)
            if categories.size < 2:
                raise ValueError(
                    f"X column {label!r} has a single category ({categories.tolist()[0]!r}): it "
                    "separates no rows; drop it"
                )
            cats.append(categories)
            codes.append(self._codes(values, categories, label))
        J = sum(c.size for c in cats)
        k = _check_k(self.n_components, J - Q, f"J - Q = {J} - {Q}, the number of non-trivial axes")
        self.categories_ = cats
        Z = self._indicator(codes)
        counts = np.asarray(Z.sum(axis=0)).ravel()
        c = counts / (n * Q)
        sc = np.sqrt(c)
        burt = (Z.T @ Z).toarray()
        M = burt / (n * Q**2) / np.outer(sc, sc) - np.outer(sc, sc)
        lam, V = np.linalg.eigh((M + M.T) / 2)
        lam, V = lam[::-1][: J - Q], V[:, ::-1][:, : J - Q]
        lam = np.maximum(lam, 0.0)
        if not lam[k - 1] > J * _EPS:
            rank = int(np.sum(lam > J * _EPS))
            raise ValueError(
                f"the indicator matrix has {rank} non-zero principal inertia(s) (some columns "
                f"are the same partition of the rows), so n_components={k} axes are not "
                f"defined; choose n_components <= {rank}"
            )
        V = V[:, :k] * axis_signs(V[:, :k].T)
        s = np.sqrt(lam[:k])
        gamma = V / sc[:, None]
        self.category_names_ = np.asarray([f"{lab}_{v}" for lab, cs in zip(labels, cats) for v in cs], dtype=object)
        self.category_counts_ = counts
        self.all_eigenvalues_ = lam
        self.eigenvalues_ = lam[:k]
        self.total_inertia_ = (J - Q) / Q
        self.explained_inertia_ratio_ = self.eigenvalues_ / self.total_inertia_
        above = lam[lam > 1.0 / Q]
        self.adjusted_eigenvalues_ = (Q / (Q - 1.0) * (above - 1.0 / Q)) ** 2 if Q > 1 else above
        self.benzecri_ratio_ = self.adjusted_eigenvalues_ / self.adjusted_eigenvalues_.sum()
        if Q > 1:
            greenacre_total = Q / (Q - 1.0) * (float(np.sum(lam**2)) - (J - Q) / Q**2)
            self.greenacre_ratio_ = self.adjusted_eigenvalues_ / greenacre_total
        else:  # one column: MCA is CA of a diagonal table; no correction applies
            self.greenacre_ratio_ = self.benzecri_ratio_
        self.column_masses_ = c
        self.column_standard_coordinates_ = gamma
        self.column_coordinates_ = gamma * s
        self.column_contributions_ = 100.0 * V**2
        self.column_cos2_ = self.column_coordinates_**2 / (n / counts - 1.0)[:, None]
        self.row_coordinates_ = self._project(Z)
        self.n_components_ = k
        self.n_features_in_ = Q
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    def _project(self, Z: scipy.sparse.csr_matrix) -> np.ndarray:
        gamma = self.column_standard_coordinates_
        Q = len(self.categories_)
        return np.asarray(Z @ gamma) / Q - self.column_masses_ @ gamma

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
        if not hasattr(self, "eigenvalues_"):
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with "
                "appropriate arguments before using this estimator."
            )
        from ._frames import check_feature_names

        check_feature_names("MCA", getattr(self, "feature_names_in_", None), feature_names_of(X))
        cols, labels, _ = self._columns(X)
        if len(cols) != self.n_features_in_:
            raise ValueError(
                f"X has {len(cols)} features, but MCA is expecting {self.n_features_in_} features as input"
            )
        codes = [
            self._codes(self._check_values(v, lab), cats, lab)
            for v, lab, cats in zip(cols, labels, self.categories_)
        ]
        return self._wrap_output(self._project(self._indicator(codes)), X)
