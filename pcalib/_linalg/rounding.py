r"""Rounding bounds of the matrices and products that the certificate of ``PCA(tol=...)``
(:mod:`pcalib._linalg.certificate`) reads: how far a formed matrix :math:`\tilde M`, and
the eigenvalues LAPACK computes for it, can be from M = :math:`Y^\top Y` (Y the centered
data in frame units), and how far a computed product :math:`M\mathbf q` can be from
the exact one.

**Formed from a centered copy** (the matrix of the Krylov route's fallback and of the
gram route, solved by LAPACK): the k + 1 leading eigenvalues of a formed matrix
:math:`\tilde M = M + E` are computed (:class:`FormedSpectrum`,
:func:`formed_spectrum`), so that step 2 of the certificate needs no random vectors. Let
:math:`u = \varepsilon/2` (the unit round-off), :math:`\gamma_L = Lu/(1 - Lu)`, Y the
centered data in frame units (so :math:`M = Y^\top Y`) and :math:`\tilde Y` the stored
copy the route formed its matrix from:

a. the copy: each entry is read in its frame (one rounding: int64 offsets), centered
   twice (two subtractions) and, standardized, divided by its scale (one rounding), so
   :math:`|\tilde y_{ij} - y_{ij}| \le 5u|y_{ij}| + u|c_j|` to first order, with
   :math:`c_j` the mean of the column after the first centering. Taking the first mean
   within the column's root-mean-square spread (:math:`\sqrt n |c_j| \le \|y_j\|`: its
   rounding error is at most :math:`\gamma_n` times the mean of :math:`|x_{ij}|`, so
   this holds unless the mean exceeds about :math:`1/(n u)` times the spread),
   :math:`\|\tilde Y - Y\|_F \le f = 6u\|\tilde Y\|_F` for the entries' own roundings.
   The rounding of the second mean is a constant d per column, which this does not
   count; as :math:`\mathbf 1^\top Y = 0`, it enters :math:`\tilde Y^\top\tilde Y` as
   :math:`n\mathbf d\mathbf d^\top` plus cross terms with the entries' errors, both of
   second order in u, so the bound below stands. The assumption on the mean is not
   checked in the code; it fails only for data whose mean is beyond about
   :math:`1/(nu)` times their spread, where the routes lose digits anyway. And
   :math:`\|\tilde Y^\top\tilde Y - Y^\top Y\|_2 \le 2f\|\tilde Y\|_F + f^2`;
b. the product: each entry of :math:`\tilde M = \mathrm{fl}(\tilde Y^\top\tilde Y)` (or
   :math:`\tilde Y\tilde Y^\top`) is a dot product of length L (n, or p), so
   :math:`|\tilde M - \tilde Y^\top\tilde Y| \le \gamma_L |\tilde Y|^\top|\tilde Y|`
   entrywise (Higham, *Accuracy and Stability of Numerical Algorithms*, section 3.5)
   and :math:`\|\tilde M - \tilde Y^\top \tilde Y\|_2 \le \gamma_L \||\tilde Y|\|_2^2
   \le \gamma_L \|\tilde Y\|_F^2`. With a and b, :math:`\|E\|_2 \le \eta_E =
   (12u + 36u^2 + \gamma_L) \|\tilde Y\|_F^2`;
c. the eigensolver: LAPACK's symmetric eigensolvers are backward stable, the computed
   :math:`\tilde\lambda_j` being the eigenvalues of :math:`\tilde M + F` with
   :math:`\|F\|_2 \le c_m \varepsilon \|\tilde M\|_2` for "a modestly growing
   function" :math:`c_m` of the order m (LAPACK Users' Guide, section 4.7); we take
   :math:`c_m = 2m` (observed errors are of order :math:`\sqrt m`), and
   :math:`\|\tilde M\|_2 \le \max(\tilde\lambda_1/(1 - c_m\varepsilon), \eta_E)`
   (:math:`\tilde M` has no eigenvalue below :math:`-\eta_E`, M being semi-definite).

So by Weyl's inequality, :math:`|\lambda_j(M) - \tilde\lambda_j| \le \eta = \eta_E +
c_m\varepsilon\|\tilde M\|_2` for every j (for the gram route's
:math:`\tilde Y\tilde Y^\top`, of order n < p, the nonzero eigenvalues are those of
:math:`Y^\top Y` too, whose others are 0). Every bound is rounded up (the sums of squares
by :math:`2\gamma_{n+p}`, the result by 16u). Then :func:`pcalib._linalg.certificate.certify` takes
:math:`U = \tilde\lambda_{k+1} + \eta` in step 2, :math:`\tilde\lambda_{a+1} + \eta` in
step 4, and bounds each eigenvalue by :math:`|\theta_j - \tilde\lambda_j| + \eta`: one
product with M (the residuals, which certify the computed axes themselves), no random
vectors, and the bounds hold with certainty (up to the assumptions of a and c, which
also bound the rounding of that product: :func:`product_rounding`). This U bounds
:math:`\lambda_{k+1}(M)`, which is all that step 3 needs, but not :math:`\lambda_1(PMP)`,
which :math:`U_a` of step 4 and the coupling bound below need (for M = diag(10, 9, 0),
V = [e_3] and U = 9 = :math:`\lambda_2`, the coupling bound would give
:math:`\lambda_1 \le 9`), so neither is used with a formed spectrum.

**The eig route's one-pass scatter** (d; :func:`scatter_error`). A fit with a
tolerance on the eig route solves the scatter that route forms without a centered copy
(``pcalib._routes.scatter``, its one-pass branch). With the shift c (0, the mean of the
first rows, or whole numbers for integer data) and :math:`b_{ij} = x_{ij} - c_j`
(exact), it computes :math:`\tilde b_{ij} = \mathrm{fl}(x_{ij} - c_j)`
(:math:`|\tilde b_{ij} - b_{ij}| \le u|b_{ij}|`; 0 without a shift, and for
integers below :math:`2^{53}`), :math:`\tilde G = \mathrm{fl}(\sum_i \tilde
b_i\tilde b_i^\top)` and :math:`\tilde{\mathbf r} = \mathrm{fl}(\sum_i \tilde b_i)`
by blocks of rows (sums of n terms in some order: :math:`\gamma_n`), :math:`\tilde m_j
= \mathrm{fl}(\tilde r_j / n)` and :math:`\tilde C_{jl} = \mathrm{fl}(\tilde G_{jl} -
\mathrm{fl}(\tilde r_j\tilde m_l))`, while :math:`M = B^\top B - \mathbf r\mathbf
r^\top / n` exactly (r the exact column sums of B, whatever c). Let :math:`\beta_j =
\|\mathbf b_j\|`, :math:`a_j = \sum_i |b_{ij}| \le \sqrt n\,\beta_j` (Cauchy and
Schwarz), :math:`\rho = u + \gamma_n(1 + u)`, so that :math:`|\tilde r_j - r_j| \le
\rho a_j`, and :math:`\mu_j = \sqrt n|\tilde m_j|/(1 - u) \ge |\tilde r_j|/\sqrt n`
(computed). The error :math:`E = \tilde C - M` is the sum of four parts:

* the shift's rounding in :math:`\tilde B^\top\tilde B - B^\top B`, at most
  :math:`(2u + u^2)\beta_j\beta_l`;
* the products' :math:`|\tilde G - \tilde B^\top\tilde B| \le \gamma_n(1 + u)^2
  \beta_j\beta_l`;
* the sums' :math:`|\mathrm{fl}(\tilde r_j\tilde m_l) - r_jr_l/n| \le \rho(\mu_j
  \beta_l + \beta_j\mu_l) + \rho^2\beta_j\beta_l + (2u + u^2)\mu_j\mu_l` (from
  :math:`\tilde r_j\tilde r_l - r_jr_l = \tilde r_j e_l + e_j r_l`, e the sums'
  errors, and the two roundings of the product);
* the subtraction's :math:`u(|\tilde G_{jl}| + |\mathrm{fl}(\tilde r_j\tilde m_l)|)
  \le u(1 + u)^2((1 + \gamma_n)\beta_j\beta_l + \mu_j\mu_l)`.

So :math:`|E| \le \kappa_0\boldsymbol\beta\boldsymbol\beta^\top +
\rho(\boldsymbol\mu\boldsymbol\beta^\top + \boldsymbol\beta\boldsymbol\mu^\top) +
\nu\boldsymbol\mu\boldsymbol\mu^\top` entrywise, with :math:`\kappa_0 = (2u + u^2)
+ \gamma_n(1 + u)^2 + \rho^2 + u(1 + u)^2(1 + \gamma_n)` and :math:`\nu = (2u + u^2)
+ u(1 + u)^2`, and a nonnegative bound on :math:`|E|` bounds its 2-norm by its own:
:math:`\|E\|_2 \le \kappa_0\|\boldsymbol\beta\|^2 +
2\rho\|\boldsymbol\mu\|\|\boldsymbol\beta\| + \nu\|\boldsymbol\mu\|^2`. Where the
mean about the shift is small (the shift is near the mean, or the mean is small), the
last two terms vanish and the bound is about :math:`(\gamma_n + 3u)\operatorname{tr}
M`, that of the centered copy (a, b). Rows and columns of constant columns are exactly
0 in both. Standardizing divides each entry twice (M is then :math:`D^{-1}MD^{-1}`,
D the computed scales, ``scale_``, as in a): :math:`\boldsymbol\beta /
\mathbf s`, :math:`\boldsymbol\mu / \mathbf s` in place of :math:`\boldsymbol\beta`,
:math:`\boldsymbol\mu`, the bound times :math:`(1 + 2u + u^2)`, plus :math:`(2u +
u^2)\|\boldsymbol\beta / \mathbf s\|^2` (as :math:`|\tilde C_{jl}| \le
\beta_j\beta_l + |E_{jl}|`). The :math:`\beta_j` are bounded from the computed values:
:math:`\beta_j^2 = M_{jj} + r_j^2/n`, :math:`M_{jj} \le \tilde C_{jj} + |E_{jj}|` and
:math:`r_j^2/n \le (\mu_j + \rho\beta_j)^2`, so, with :math:`2\mu_j\beta_j \le
\mu_j^2 + \beta_j^2`, :math:`\beta_j^2(1 - \kappa_0 - \rho^2 - 2\rho) \le \tilde
C_{jj} + (1 + \nu + 2\rho)\mu_j^2`. No condition on the mean is needed: where it is
large, so is :math:`\mu_j`, and the bound grows with it. Products
:math:`\mathrm{fl}(\tilde C\mathbf q)` (dot products of length p) add
:math:`\gamma_p\||\tilde C|\|_2\|\mathbf q\| \le \gamma_p(\|\boldsymbol\beta\|^2
+ \|E\|_2)\|\mathbf q\|`. The other branch of the scatter (data read in the frame of
their extremes) has no such bound here: those fits are certified with random probes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["FormedSpectrum", "ScatterError", "formed_spectrum", "gamma", "product_rounding", "scatter_error"]

_EPS = float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class FormedSpectrum:
    r"""The leading eigenvalues that an exact route computed for its formed matrix
    :math:`\tilde M`, and a bound on their distance to those of M (module docstring,
    a to c): :math:`|\lambda_j(M) - \tilde\lambda_j| \le` ``error`` for every j."""

    eigenvalues: np.ndarray  #: (k + 1,) the k + 1 largest computed eigenvalues, decreasing (0 beyond the order)
    error: float  #: eta


def formed_spectrum(computed: np.ndarray, total_ss: float, inner: int, n: int, p: int) -> FormedSpectrum:
    r"""The :class:`FormedSpectrum` of a matrix formed as :math:`\tilde Y^\top \tilde Y`
    or :math:`\tilde Y \tilde Y^\top` (products of length `inner`) from the centered
    copy :math:`\tilde Y` (n x p, :math:`\|\tilde Y\|_F^2` = `total_ss`, computed) and
    solved by LAPACK: `computed`, its k + 1 leading eigenvalues (0 beyond its order), with

    .. math:: \eta = \big(\eta_E + c_m\varepsilon\max(\tilde\lambda_1/(1 - c_m\varepsilon),
              \eta_E)\big)(1 + 16u), \qquad
              \eta_E = (12u + 36u^2 + \gamma_L)\,\|\tilde Y\|_F^2 (1 + 2\gamma_{n+p}),

    :math:`c_m = 2m`, m = n + p - L the order of the formed matrix (p for
    :math:`\tilde Y^\top \tilde Y`, n for :math:`\tilde Y \tilde Y^\top`), L = `inner`
    (module docstring, a to c)."""
    return _solved(computed, _copy_and_products(total_ss, n, p, gamma(inner)), n + p - inner)


def _solved(computed: np.ndarray, formed: float, order: int) -> FormedSpectrum:
    r"""The :class:`FormedSpectrum` of a formed matrix :math:`\tilde M` of order m =
    `order` within :math:`\eta_E` = `formed` of M in 2-norm, solved by LAPACK with
    the k + 1 leading eigenvalues `computed`: :math:`\eta = (\eta_E +
    c_m\varepsilon\max(\tilde\lambda_1/(1 - c_m\varepsilon), \eta_E))(1 + 16u)`,
    :math:`c_m = 2m` (module docstring, c)."""
    unit = _EPS / 2
    solver = 2.0 * order * _EPS  # c_m = 2m
    norm = max(max(float(computed[0]), 0.0) / (1.0 - solver), formed)
    error = (formed + solver * norm) * (1.0 + 16.0 * unit)
    return FormedSpectrum(np.asarray(computed, dtype=np.float64), float(error))


@dataclass(frozen=True)
class ScatterError:
    r"""Bounds on the one-pass scatter :math:`\tilde C` of the eig route (module
    docstring, d): :math:`\|\tilde C - M\|_2 \le` ``matrix`` and
    :math:`\|\mathrm{fl}(\tilde C\mathbf q) - M\mathbf q\| \le` ``product``
    :math:`\|\mathbf q\|` for its products (``dsymm``, dot products of length p)."""

    matrix: float  #: eta_E
    product: float  #: per unit of ||q||

    order: int  #: p, the order of C

    def spectrum(self, computed: np.ndarray) -> FormedSpectrum:
        """The :class:`FormedSpectrum` of :math:`\tilde C` (order p) solved by LAPACK,
        `computed` its k + 1 leading eigenvalues."""
        return _solved(computed, self.matrix, self.order)


def scatter_error(
    diagonal: np.ndarray, offset: np.ndarray, scale: np.ndarray, n: int, standardized: bool
) -> ScatterError | None:
    r"""The bounds of the eig route's one-pass scatter :math:`\tilde C` on M (module
    docstring, d): `diagonal`, the diagonal of :math:`\tilde C` as formed (divided by
    the scales when `standardized`), `offset` the column means about the shift
    (:math:`\tilde m_j`, as subtracted), `scale` the column scales :math:`s_j` (ones
    unless `standardized`), n the rows. With :math:`\rho = u + \gamma_n(1 + u)`,
    :math:`q = (1 - u)^{-2}`, :math:`\mu_j^2 = q\,n\tilde m_j^2`, :math:`\rho_1 =
    2\rho` and :math:`\kappa_0`, :math:`\nu` the constants of d,

    .. math::

        W_\mu = \sum_j \frac{\mu_j^2}{s_j^2}, \qquad
        W = \frac{\sum_j q\tilde C_{jj} + (1 + \nu + \rho_1)\,\mu_j^2 / s_j^2}
            {1 - \kappa_0 - \rho^2 - \rho_1}, \qquad
        \eta_0 = \kappa_0 W + \rho_1\sqrt{W W_\mu} + \nu W_\mu,

    :math:`\eta_E = \eta_0` (standardized: :math:`(1 + 2u + u^2)\eta_0 + (2u + u^2)W`)
    and, for a product, :math:`\eta_E + \gamma_p(W + \eta_E)`, each rounded up by
    :math:`(1 + \gamma_{p+10})(1 + 16u)`. None where the denominator is not positive
    (n beyond about :math:`10^{14}`)."""
    unit = _EPS / 2
    p = diagonal.size
    g = gamma(n)
    rho = unit + g * (1.0 + unit)
    up = (1.0 + unit) ** 2
    kappa = (2.0 * unit + unit**2) + g * up + rho**2 + unit * up * (1.0 + g)
    rho_1 = 2.0 * rho
    nu = (2.0 * unit + unit**2) + unit * up
    denominator = 1.0 - kappa - rho**2 - rho_1
    if not denominator > 0.0:
        return None
    q = 1.0 / (1.0 - unit) ** 2
    means = q * n * (offset / scale) ** 2
    W_mu = float(np.sum(means))
    W = float(np.sum(q * np.maximum(diagonal, 0.0) + (1.0 + nu + rho_1) * means)) / denominator
    matrix = kappa * W + rho_1 * np.sqrt(W * W_mu) + nu * W_mu
    if standardized:
        matrix = (1.0 + 2.0 * unit + unit**2) * matrix + (2.0 * unit + unit**2) * W
    up_p = (1.0 + gamma(p + 10)) * (1.0 + 16.0 * unit)
    matrix *= up_p
    product = (matrix + gamma(p) * (W + matrix)) * up_p
    return ScatterError(float(matrix), float(product), p)


def product_rounding(total_ss: float, n: int, p: int, mean_ss: float | None = None) -> float:
    r"""A bound on the rounding of one product :math:`M\mathbf q = Y^\top (Y\mathbf q)`
    per unit of :math:`\|\mathbf q\|`, Y the n x p centered data (:math:`\|Y\|_F^2`
    = `total_ss`), each row formed from the data with an error of at most 6u
    :math:`\|Y\|_F` in Frobenius norm (as in a of the module docstring, under its
    assumption on the mean), then the two
    products (lengths p and n, in any order of summation; Higham, section 3.5):

    .. math:: (12u + 36u^2 + \gamma_n + \gamma_p + \gamma_n\gamma_p)\,
              \|Y\|_F^2\,(1 + 2\gamma_{n+p})(1 + 16u),

    as :math:`|\mathrm{fl}(Y^\top(Y\mathbf q)) - Y^\top Y\mathbf q| \le (\gamma_p +
    \gamma_n + \gamma_n\gamma_p)\,|Y|^\top|Y||\mathbf q|` entrywise and
    :math:`\||Y|\|_2^2 \le \|Y\|_F^2`. A bound, not an estimate: it grows with n,
    where the estimate :math:`\sqrt p\,\varepsilon\theta_1` it replaces did not (and
    fell short of the error at p = 5, n = 20,000).

    With `mean_ss` :math:`= \|D^{-1}\bar{\mathbf x}\|^2`, the products are taken
    with the data X themselves and the rank-one correction of the mean, :math:`Y =
    (X - \mathbf 1\bar{\mathbf x}^\top) D^{-1}` never formed
    (``pcalib._routes.decomposition.CenteredProducts`` with a mean; Y here is the data
    centered about the computed mean, whose distance to the exact mean enters
    :math:`Y^\top Y` at second order, as in a of the module docstring). With
    :math:`A = |X| + \mathbf 1|\bar{\mathbf x}|^\top`, the scaling of the block (one
    rounding), the product with X, the correction and the subtraction give
    :math:`|\mathrm{fl}(Y\mathbf q) - Y\mathbf q| \le \gamma_{p+2} A|D^{-1}||\mathbf
    q|`, the transposed product likewise with :math:`\gamma_{n+2}` (the column sums,
    the outer product with the mean, the subtraction and the scaling), so

    .. math:: (\gamma_{n+2} + \gamma_{p+2} + \gamma_{n+2}\gamma_{p+2})\,
              \|AD^{-1}\|_F^2, \qquad \|AD^{-1}\|_F^2 \le
              2\big(\|Y\|_F^2 + 2n\|D^{-1}\bar{\mathbf x}\|^2\big),

    as :math:`(|x| + |\bar x|)^2 \le 2x^2 + 2\bar x^2` and :math:`\sum_i x_{ij}^2 =
    \|\mathbf y_j\|^2 + n\bar x_j^2` (the columns of Y summing to 0), rounded up as
    the other bound. Where every column has :math:`n\bar x_j^2 \le \|\mathbf y_j\|^2`
    (the products' condition) this is at most 6 times the bound without a mean."""
    if mean_ss is not None:
        gamma_n, gamma_p = gamma(n + 2), gamma(p + 2)
        spread = 2.0 * (total_ss + 2.0 * n * mean_ss) * (1.0 + 2.0 * gamma(n + p))
        return (gamma_n + gamma_p + gamma_n * gamma_p) * spread * (1.0 + 8.0 * _EPS)  # 16u
    gamma_n, gamma_p = gamma(n), gamma(p)
    return _copy_and_products(total_ss, n, p, gamma_n + gamma_p + gamma_n * gamma_p) * (1.0 + 8.0 * _EPS)  # 16u


def _copy_and_products(total_ss: float, n: int, p: int, products: float) -> float:
    r""":math:`(12u + 36u^2 + g)\,\|\tilde Y\|_F^2 (1 + 2\gamma_{n+p})`: the error of the
    centered copy (a of the module docstring) and of products whose relative error bound
    is g (`products`), with the computed :math:`\|\tilde Y\|_F^2` (`total_ss`) rounded
    up; the one sum that :func:`formed_spectrum` and :func:`product_rounding` share."""
    unit = _EPS / 2
    return (12.0 * unit + 36.0 * unit**2 + products) * (total_ss * (1.0 + 2.0 * gamma(n + p)))


def gamma(length: int) -> float:
    r""":math:`\gamma_L = L u / (1 - L u)`, u the unit round-off: the relative error bound
    of a sum or dot product of L terms (Higham, lemma 3.1)."""
    product = length * _EPS / 2
    return product / (1.0 - product)

