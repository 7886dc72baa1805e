"""Principal component pursuit (pcalib.robust.principal_component_pursuit), chapter 14.

Independent references: the planted matrices themselves (exact recovery, Candès, Li, Ma
and Wright 2011, Theorem 1.1, holds for an incoherent rank-3 L and 5% randomly placed
corruptions at these sizes), and the optimality conditions of the convex program,
checked from first principles with NumPy's SVD (the certificate: a dual Y with
|Y| <= lambda, equal to lambda sign(S) on the support of S, and Y = U V^T + W, W
orthogonal to L's singular vectors with spectral norm at most 1).
"""

from __future__ import annotations

import numpy as np
import pytest

from pcalib.robust import principal_component_pursuit


def planted(seed: int = 0, n: int = 120, p: int = 80, rank: int = 3, share: float = 0.05):
    rng = np.random.default_rng(seed)
    L0 = rng.standard_normal((n, rank)) @ rng.standard_normal((rank, p))
    S0 = np.where(rng.random((n, p)) < share, rng.choice([-1.0, 1.0], (n, p)) * 10.0, 0.0)
    return L0, S0


@pytest.mark.theorem("prop-pcp-certificate")
@pytest.mark.parametrize("seed", range(3))
def test_pcp_recovers_the_planted_parts_and_certifies_them(seed):
    L0, S0 = planted(seed)
    result = principal_component_pursuit(L0 + S0)
    assert np.linalg.norm(result.low_rank - L0) <= 1e-7 * np.linalg.norm(L0)
    assert np.linalg.norm(result.sparse - S0) <= 1e-7 * np.linalg.norm(S0)
    lam = 1 / np.sqrt(120)
    Y, on = result.dual, S0 != 0
    assert np.abs(Y[~on]).max() <= lam * (1 + 1e-6)
    np.testing.assert_allclose(Y[on], lam * np.sign(S0[on]), rtol=1e-6)
    U, s, Vt = np.linalg.svd(L0, full_matrices=False)
    U, Vt = U[:, :3], Vt[:3]
    W = Y - U @ Vt
    assert np.abs(U.T @ W).max() < 1e-6 and np.abs(W @ Vt.T).max() < 1e-6
    assert np.linalg.norm(W, 2) < 1.0


def test_pcp_at_every_scale():
    """The same iterations at 1e-170 and 1e155 (the data are read in units of a power of
    two): L and S scale with M, the certificate Y does not."""
    L0, S0 = planted(1)
    ref = principal_component_pursuit(L0 + S0)
    for scale in (1e-170, 1e155):
        res = principal_component_pursuit((L0 + S0) * scale)
        np.testing.assert_allclose(res.low_rank / scale, ref.low_rank, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(res.dual, ref.dual, atol=1e-12)
        assert res.n_iter == ref.n_iter


def test_pcp_refuses_bad_input():
    with pytest.raises(ValueError, match="sparse_weight must be a positive number"):
        principal_component_pursuit(np.eye(3), sparse_weight=0.0)
    with pytest.raises(ValueError, match="did not reach tol"):
        principal_component_pursuit(np.add.outer(np.arange(30.0), np.arange(20.0)) ** 2, max_iter=2)
    with pytest.raises(ValueError, match="NaN or inf"):
        principal_component_pursuit(np.array([[1.0, np.nan], [0.0, 1.0]]))
    zero = principal_component_pursuit(np.zeros((3, 4)))
    assert not zero.low_rank.any() and not zero.sparse.any()
