"""Tests of the data sets of Part V: gasoline spectra, Mauna Loa co2, Berkeley growth.

Known values are R's (R 4.2.2): sums and single entries printed with options(digits = 15).
"""

import numpy as np

from pcalib import datasets


def test_gasoline_is_r_pls_gasoline():
    gas = datasets.load_gasoline()
    assert gas.data.shape == (60, 401) and gas.target.shape == (60,) and gas.grid.shape == (401,)
    assert gas.target_names == [] and gas.name == "gasoline"
    np.testing.assert_array_equal(gas.grid, np.arange(900.0, 1701.0, 2.0))
    # R: library(pls); X <- unclass(gasoline$NIR); sum(X); X[1, 1]; X[60, 401]
    np.testing.assert_allclose(gas.data.sum(), 2665.085391, rtol=1e-13)
    assert gas.data[0, 0] == -0.050193 and gas.data[59, 400] == 1.163959
    # R: mean(gasoline$octane); sd(gasoline$octane); gasoline$octane[c(1, 60)]
    np.testing.assert_allclose([gas.target.mean(), gas.target.std(ddof=1)], [87.1775, 1.53007768164378], rtol=1e-13)
    assert gas.target[0] == 85.3 and gas.target[59] == 87.1
    assert repr(gas) == "Curves(name='gasoline', shape=(60, 401), grid=900..1700)"


def test_co2_is_r_datasets_co2():
    co2 = datasets.load_co2()
    assert co2.values.shape == co2.time.shape == (468,) and co2.frequency == 12
    # R: sum(co2); co2[c(1, 468)]; min(co2); max(co2); tsp(co2)
    np.testing.assert_allclose(co2.values.sum(), 157741.05, rtol=1e-14)
    assert co2.values[0] == 315.42 and co2.values[-1] == 364.34
    assert co2.values.min() == 313.18 and co2.values.max() == 366.84
    np.testing.assert_allclose(co2.time[[0, -1]], [1959.0, 1997 + 11 / 12], rtol=1e-15)
    np.testing.assert_allclose(np.diff(co2.time), 1 / 12, rtol=1e-9)
    # the three values R interpolated linearly between January and May 1964
    jan = int(np.flatnonzero(np.isclose(co2.time, 1964.0))[0])
    np.testing.assert_allclose(co2.values[jan:jan + 5], np.linspace(co2.values[jan], co2.values[jan + 4], 5),
                               atol=0.006)
    assert repr(co2) == "TimeSeries(name='co2', length=468, time=1959.00..1997.92, frequency=12)"


def test_growth_is_the_berkeley_growth_study():
    growth = datasets.load_growth()
    assert growth.data.shape == (93, 31) and growth.grid.shape == (31,)
    assert growth.target_names == ["girl", "boy"]
    assert np.array_equal(np.bincount(growth.target), [54, 39])
    assert np.all(growth.target[:54] == 0) and np.all(growth.target[54:] == 1)
    ages = np.concatenate([np.arange(1, 2.01, 0.25), np.arange(3, 8.01, 1.0), np.arange(8.5, 18.01, 0.5)])
    np.testing.assert_array_equal(growth.grid, ages)
    # R: library(ddalpha); data(growth); H <- t(sapply(growth$dataf, function(d) d$vals))
    #    sum(H); mean(H[1:54, 31]); mean(H[55:93, 31]); H[1, 1]; H[93, 31]; colMeans(H)[c(1, 5, 31)]
    np.testing.assert_allclose(growth.data.sum(), 394551.3, rtol=1e-14)
    np.testing.assert_allclose([growth.data[:54, -1].mean(), growth.data[54:, -1].mean()],
                               [166.294444444444, 180.223076923077], rtol=1e-13)
    assert growth.data[0, 0] == 76.2 and growth.data[92, 30] == 176.4
    np.testing.assert_allclose(growth.data.mean(axis=0)[[0, 4, 30]],
                               [74.7677419354839, 87.9096774193548, 172.135483870968], rtol=1e-13)
    assert np.all(np.diff(growth.data, axis=1) > -1.0)  # heights barely ever decrease
    assert repr(growth) == "Curves(name='growth', shape=(93, 31), grid=1..18)"
