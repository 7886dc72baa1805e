r"""Small real data sets shipped with pcalib, loaded offline.

Each loader reads a file in ``pcalib/datasets/data/`` (installed with the package)
and returns NumPy arrays. Sources and licences are in each docstring.
"""

from __future__ import annotations

import csv
import gzip
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "Cities",
    "ContingencyTable",
    "Curves",
    "Dataset",
    "great_circle_distances",
    "load_cities",
    "load_co2",
    "load_digits",
    "load_gasoline",
    "load_growth",
    "load_hair_eye_color",
    "load_hbk",
    "load_image",
    "load_iris",
    "load_mtcars",
    "load_poison",
    "Table",
    "TimeSeries",
]

_DATA = Path(__file__).resolve().parent / "data"  # shipped as package data (pyproject.toml)


@dataclass(frozen=True)
class Dataset:
    """A labelled data set.

    Attributes
    ----------
    data : ndarray of shape (n, p)
        One sample per row.
    target : ndarray of shape (n,), int
        Class index of each sample.
    target_names : list of str
        Name of each class: sample i belongs to ``target_names[target[i]]``.
    feature_names : list of str
        Name of each column of `data`.
    name : str
        Short name of the data set (``"iris"``, ``"digits"``).
    """

    data: np.ndarray
    target: np.ndarray
    target_names: list[str]
    feature_names: list[str]
    name: str = "dataset"

    def __repr__(self) -> str:
        """Name, shape and (up to five) feature names, not every number."""
        names = self.feature_names
        shown = ", ".join(map(repr, names[:5])) + (f", ... ({len(names)} in all)" if len(names) > 5 else "")
        return (
            f"Dataset(name={self.name!r}, shape={self.data.shape}, "
            f"classes={len(self.target_names)}, feature_names=[{shown}])"
        )


@dataclass(frozen=True)
class Table:
    """A table of numbers with named rows and columns.

    Attributes
    ----------
    data : ndarray of shape (n, p)
        One sample per row.
    feature_names : list of str
        Name of each column of `data`.
    row_names : list of str
        Name of each row of `data`.
    name : str
        Short name of the data set (``"mtcars"``).
    """

    data: np.ndarray
    feature_names: list[str]
    row_names: list[str]
    name: str = "table"

    def __repr__(self) -> str:
        """Name, shape and the first feature names, not every number."""
        return f"Table(name={self.name!r}, shape={self.data.shape}, feature_names={self.feature_names[:5]}...)"

    def to_frame(self) -> Any:  # a pandas.DataFrame (pandas is optional)
        """The table as a pandas DataFrame, rows indexed by `row_names` (imports pandas)."""
        import pandas

        return pandas.DataFrame(self.data.copy(), index=list(self.row_names), columns=list(self.feature_names))


@dataclass(frozen=True)
class Cities:
    """Names and positions of cities.

    Attributes
    ----------
    names : list of str
    latitude : ndarray of shape (n,)
        Decimal degrees, north positive.
    longitude : ndarray of shape (n,)
        Decimal degrees, east positive.
    """

    names: list[str]
    latitude: np.ndarray
    longitude: np.ndarray

    def __repr__(self) -> str:
        shown = ", ".join(map(repr, self.names[:3]))
        return f"Cities({len(self.names)} cities: {shown}, ...)"


def load_iris() -> Dataset:
    """Fisher's iris data: 150 flowers, 4 measurements in cm, 3 species.

    Columns: sepal length, sepal width, petal length, petal width. Species
    ``setosa``, ``versicolor``, ``virginica``, 50 flowers each, in that order.
    The values are those of R's ``datasets::iris`` (column means 5.843333,
    3.057333, 3.758000, 1.199333).

    Returns
    -------
    Dataset
        `data` (150, 4) float64, `target` (150,) in {0, 1, 2}, `target_names`,
        `feature_names`.

    Notes
    -----
    Source: E. Anderson (1935), *The irises of the Gaspé Peninsula*, Bulletin of the
    American Iris Society 59, 2-5; R. A. Fisher (1936), *The use of multiple
    measurements in taxonomic problems*, Annals of Eugenics 7, 179-188. The file was
    derived from scikit-learn's copy (``sklearn/datasets/data/iris.csv``), which
    matches Fisher's table and R (the UCI copy has two misprinted values).
    Licence: public domain (a 1936 publication of measurements); the UCI Machine
    Learning Repository distributes it under CC BY 4.0.
    """
    with (_DATA / "iris.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    data = np.array([[float(v) for v in row[:4]] for row in body])
    species = [row[4] for row in body]
    target_names = list(dict.fromkeys(species))
    target = np.array([target_names.index(s) for s in species])
    return Dataset(data, target, target_names, header[:4], "iris")


def load_digits() -> Dataset:
    """Handwritten digits: 1797 images of 8 x 8 pixels, grey levels 0 to 16.

    Each row of `data` is an image flattened row by row (``data[i].reshape(8, 8)``);
    `target` is the digit shown.

    Returns
    -------
    Dataset
        `data` (1797, 64) float64 with integer values 0..16, `target` (1797,) in
        0..9, `target_names` ``["0", ..., "9"]``, `feature_names`
        ``["pixel_0_0", ..., "pixel_7_7"]``.

    Notes
    -----
    Source: the test part of the UCI *Optical Recognition of Handwritten Digits*
    data set (E. Alpaydin and C. Kaynak, 1998; 32 x 32 bitmaps counted over 4 x 4
    blocks), as shipped by scikit-learn (``sklearn/datasets/data/digits.csv.gz``,
    copied unchanged). Licence: CC BY 4.0 (UCI Machine Learning Repository,
    https://doi.org/10.24432/C50P49).
    """
    with gzip.open(_DATA / "digits.csv.gz", "rt") as f:
        table = np.loadtxt(f, delimiter=",")
    features = [f"pixel_{i}_{j}" for i in range(8) for j in range(8)]
    return Dataset(table[:, :64], table[:, 64].astype(int), [str(d) for d in range(10)], features, "digits")


def load_cities() -> Cities:
    """33 world cities with their latitude and longitude.

    Ten European capitals (Lisbon, Madrid, Paris, London, Berlin, Rome, Vienna,
    Stockholm, Athens, Warsaw) and cities on every inhabited continent, for
    distance tables whose map is known (:func:`great_circle_distances`).

    Returns
    -------
    Cities
        `names` (list of 33 str, ASCII spellings), `latitude` and `longitude`
        (33,) in decimal degrees, north and east positive.

    Notes
    -----
    Source: the city-centre coordinates given in each city's Wikipedia article
    (GeoHack), rounded to 4 decimals (about 10 m). Geographic coordinates are facts,
    not copyrightable; the table is released with pcalib under its MIT licence.
    """
    with (_DATA / "cities.csv").open(encoding="utf-8", newline="") as f:
        body = list(csv.reader(f))[1:]
    names = [row[0] for row in body]
    latitude = np.array([float(row[1]) for row in body])
    longitude = np.array([float(row[2]) for row in body])
    return Cities(names, latitude, longitude)


def load_image() -> np.ndarray:
    """A grayscale photograph of Grace Hopper, 300 x 256 pixels, values in [0, 1].

    Returns
    -------
    ndarray of shape (300, 256), float64
        Brightness, 0 black and 1 white.

    Notes
    -----
    Source: the official portrait of Commodore Grace M. Hopper, US Navy, 1984 (photo
    by James S. Davis), as shipped with Matplotlib
    (``matplotlib.cbook.get_sample_data("grace_hopper.jpg")``, 600 x 512 RGB).
    Licence: public domain (work of the US federal government). Conversion: luma
    ``0.299 R + 0.587 G + 0.114 B``, then the mean of each 2 x 2 block, rounded to
    uint8 and stored compressed (``grace_hopper_gray.npz``); the loader divides by
    255.
    """
    with np.load(_DATA / "grace_hopper_gray.npz") as f:
        return f["image"] / 255.0


def load_hbk() -> Dataset:
    """The Hawkins-Bradu-Kass data: 75 rows, 3 explanatory variables and a response,
    14 planted outliers.

    Columns ``x1``, ``x2``, ``x3``, ``y``. Rows 1-10 (target 1) are far from the bulk in
    the x variables and do not follow the regression of the bulk; rows 11-14 (target
    2) are far in the x variables but follow it; rows 15-75 (target 0) are regular.
    PCA of the three x columns sees all 14 as far from the bulk.

    Returns
    -------
    Dataset
        `data` (75, 4) float64, `target` (75,) in {0, 1, 2}, `target_names`,
        `feature_names` ``["x1", "x2", "x3", "y"]``.

    Notes
    -----
    Source: D. M. Hawkins, D. Bradu and G. V. Kass (1984), *Location of several
    outliers in multiple-regression data using elemental sets*, Technometrics 26(3),
    197-208 (constructed data). The file is R's ``robustbase::hbk``
    (robustbase 0.95-0, ``write.csv(hbk)``); column sums 240.5, 419.8, 542.3, 95.9. Licence: a published table of constructed numbers,
    redistributed by robustbase under the GPL (>= 2).
    """
    table = np.loadtxt(_DATA / "hbk.csv", delimiter=",", skiprows=1)
    target = np.zeros(75, dtype=int)
    target[:10], target[10:14] = 1, 2
    names = ["regular", "outlier in x and y (rows 1-10)", "outlier in x only (rows 11-14)"]
    return Dataset(table, target, names, ["x1", "x2", "x3", "y"], "hbk")


def load_mtcars() -> Table:
    """R's ``mtcars``: 32 cars of 1973-74 described by 11 numeric variables.

    Columns: ``mpg`` (miles per US gallon), ``cyl`` (cylinders), ``disp``
    (displacement, cubic inches), ``hp`` (gross horsepower), ``drat`` (rear axle
    ratio), ``wt`` (weight, 1000 lb), ``qsec`` (quarter-mile time, s), ``vs``
    (engine: 0 V-shaped, 1 straight), ``am`` (transmission: 0 automatic, 1 manual),
    ``gear`` (forward gears), ``carb`` (carburettors). Rows are named by car.

    Returns
    -------
    Table
        `data` (32, 11) float64, `feature_names`, `row_names`; ``to_frame()`` gives
        the pandas DataFrame.

    Notes
    -----
    Source: H. V. Henderson and P. F. Velleman (1981), *Building multiple regression
    models interactively*, Biometrics 37, 391-411, from the 1974 *Motor Trend* US
    magazine. The file is R's ``datasets::mtcars`` (R 4.2.2, ``write.csv(mtcars)``);
    column sums 642.9, 198, 7383.1, 4694, 115.09, 102.952, 571.16, 14, 13, 118, 90.
    Licence: a published table of measurements (facts), shipped with R under the
    GPL (>= 2).
    """
    with (_DATA / "mtcars.csv").open() as handle:
        rows = list(csv.reader(handle))
    names = rows[0][1:]
    return Table(
        np.array([[float(v) for v in row[1:]] for row in rows[1:]]),
        names,
        [row[0] for row in rows[1:]],
        "mtcars",
    )


@dataclass(frozen=True)
class ContingencyTable:
    """A two-way table of counts, with the individuals it counts.

    Attributes
    ----------
    counts : ndarray of shape (I, J), int
        ``counts[i, j]`` individuals fall in row category i and column category j.
    row_names, column_names : list of str
        The categories of the rows and of the columns.
    records : ndarray of str objects, shape (n, m)
        One row per individual, one column per variable (``record_names``), in the
        order of the source's long table: the individuals behind `counts` (and any
        further variable the table was summed over).
    record_names : list of str
        Name of each column of `records`.
    name : str
    """

    counts: np.ndarray
    row_names: list[str]
    column_names: list[str]
    records: np.ndarray
    record_names: list[str]
    name: str = "table"

    def __repr__(self) -> str:
        return (
            f"ContingencyTable(name={self.name!r}, shape={self.counts.shape}, "
            f"total={int(self.counts.sum())}, rows={self.row_names}, columns={self.column_names})"
        )


def load_hair_eye_color() -> ContingencyTable:
    """Hair and eye colour of 592 statistics students (Snee 1974), summed over sex.

    `counts` is the 4 x 4 table of hair colour (rows ``Black``, ``Brown``, ``Red``,
    ``Blond``) by eye colour (columns ``Brown``, ``Blue``, ``Hazel``, ``Green``);
    `records` has one row per student with columns ``Hair``, ``Eye``, ``Sex``
    (``Male``, ``Female``): 279 men and 313 women.

    Returns
    -------
    ContingencyTable

    Notes
    -----
    Source: R. D. Snee (1974), *Graphical display of two-way contingency tables*, The
    American Statistician 28(1), 9-12 (a survey of students at the University of
    Delaware); the split by sex is R's ``datasets::HairEyeColor`` (Friendly 1992). The
    file is ``write.csv(as.data.frame(HairEyeColor))`` from R 4.2.2 (long format:
    Hair, Eye, Sex, Freq); row sums of `counts` 108, 286, 71, 127. Licence: a
    published table of counts (facts, not copyrightable), distributed with R's
    datasets package under the GPL (>= 2).
    """
    with (_DATA / "hair_eye_color.csv").open(encoding="utf-8", newline="") as f:
        body = list(csv.reader(f))[1:]
    hair = list(dict.fromkeys(row[0] for row in body))
    eye = list(dict.fromkeys(row[1] for row in body))
    counts = np.zeros((len(hair), len(eye)), dtype=np.int64)
    records = []
    for h, e, sex, freq in body:
        counts[hair.index(h), eye.index(e)] += int(freq)
        records += [(h, e, sex)] * int(freq)
    return ContingencyTable(
        counts, hair, eye, np.array(records, dtype=object), ["Hair", "Eye", "Sex"], "hair_eye_color",
    )


def _as_degrees(values: ArrayLike, name: str, limit: float) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold real numbers in degrees, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of degrees, got shape {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity; all entries must be finite")
    if np.any(np.abs(arr) > limit):
        raise ValueError(f"{name} must be in [-{limit:g}, {limit:g}] degrees, got values up to {np.abs(arr).max():g}")
    return arr


def great_circle_distances(lat: ArrayLike, lon: ArrayLike, radius: float = 6371.0) -> np.ndarray:
    r"""Great-circle distances between points on a sphere (haversine formula).

    .. math::

        d_{ij} = 2R \arcsin\sqrt{\sin^2\frac{\varphi_j - \varphi_i}{2}
                 + \cos\varphi_i \cos\varphi_j \sin^2\frac{\lambda_j - \lambda_i}{2}}

    with latitudes :math:`\varphi` and longitudes :math:`\lambda` in radians.

    Parameters
    ----------
    lat, lon : array_like of shape (n,)
        Latitudes in [-90, 90] and longitudes in [-360, 360], in decimal degrees.
    radius : float, default 6371.0
        Radius R of the sphere; the default is the Earth's mean radius in km, so the
        distances are in km.

    Returns
    -------
    ndarray of shape (n, n)
        Symmetric, zero diagonal, entries in :math:`[0, \pi R]`.

    Raises
    ------
    TypeError
        If `lat` or `lon` is not numeric.
    ValueError
        If they are not 1-D of the same length, not finite or out of range, or if
        `radius` is not a positive finite number.

    Examples
    --------
    >>> d = great_circle_distances([0.0, 0.0], [0.0, 90.0], radius=1.0)
    >>> bool(np.isclose(d[0, 1], np.pi / 2))
    True
    """
    phi = np.radians(_as_degrees(lat, "lat", 90.0))
    lam = np.radians(_as_degrees(lon, "lon", 360.0))
    if phi.shape != lam.shape:
        raise ValueError(f"lat and lon must have the same length, got {phi.size} and {lam.size}")
    if isinstance(radius, (bool, np.bool_)) or not (
        isinstance(radius, (int, float, np.floating, np.integer)) and np.isfinite(radius) and radius > 0
    ):
        raise ValueError(f"radius must be a positive finite number, got {radius!r}")
    h = (np.sin((phi[None, :] - phi[:, None]) / 2) ** 2
         + np.cos(phi)[:, None] * np.cos(phi)[None, :] * np.sin((lam[None, :] - lam[:, None]) / 2) ** 2)
    D = 2 * radius * np.arcsin(np.sqrt(np.clip(h, 0.0, 1.0)))
    D = (D + D.T) / 2
    np.fill_diagonal(D, 0.0)
    return D


def load_poison() -> Table:
    """Food poisoning at a school dinner: 55 children, 13 yes/no or two-level questions.

    Columns ``Sick``, ``Sex`` (``F``, ``M``), the symptoms ``Nausea``, ``Vomiting``,
    ``Abdominals``, ``Fever``, ``Diarrhae`` and the foods eaten ``Potato``, ``Fish``,
    ``Mayo``, ``Courgette``, ``Cheese``, ``Icecream``, each entry a level such as
    ``"Fish_y"`` or ``"Fish_n"``. One child ate no fish.

    Returns
    -------
    Table
        `data` (55, 13) str objects, `feature_names`, `row_names` ``"1"`` to ``"55"``.

    Notes
    -----
    Source: R's ``FactoMineR::poison`` (FactoMineR 2.7, ``write.csv(poison)``; its
    columns ``Age`` and ``Time`` are in the file and not loaded), the survey of
    Husson, Lê and Pagès, *Exploratory Multivariate Analysis by Example Using R*
    (2011). Licence: distributed with FactoMineR under the GPL (>= 2).
    """
    with (_DATA / "poison.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    data = np.array([row[3:] for row in rows[1:]], dtype=object)
    return Table(data, rows[0][3:], [row[0] for row in rows[1:]], "poison")


@dataclass(frozen=True)
class Curves:
    """Curves observed on one common grid, with a response or a class per curve.

    Attributes
    ----------
    data : ndarray of shape (n, p)
        ``data[i, j]`` is curve i at ``grid[j]``.
    grid : ndarray of shape (p,)
        The points where every curve is observed, increasing (not necessarily evenly
        spaced).
    target : ndarray of shape (n,)
        A measured response (float) or, when `target_names` is not empty, the class
        index of each curve (int): curve i belongs to ``target_names[target[i]]``.
    target_names : list of str
        The class names; empty when `target` is a measurement.
    name : str
    """

    data: np.ndarray
    grid: np.ndarray
    target: np.ndarray
    target_names: list[str]
    name: str = "curves"

    def __repr__(self) -> str:
        """Name, shape and the range of the grid, not every number."""
        return (
            f"Curves(name={self.name!r}, shape={self.data.shape}, "
            f"grid={self.grid[0]:g}..{self.grid[-1]:g})"
        )


@dataclass(frozen=True)
class TimeSeries:
    """A series observed at regular times.

    Attributes
    ----------
    values : ndarray of shape (N,)
    time : ndarray of shape (N,)
        The time of each value, in years (R's ``time()``: the start of the period).
    frequency : int
        Observations per year (12: monthly).
    name : str
    """

    values: np.ndarray
    time: np.ndarray
    frequency: int
    name: str = "series"

    def __repr__(self) -> str:
        """Name, length and time span, not every number."""
        return (
            f"TimeSeries(name={self.name!r}, length={self.values.size}, "
            f"time={self.time[0]:.2f}..{self.time[-1]:.2f}, frequency={self.frequency})"
        )


def load_gasoline() -> Curves:
    """Near-infrared spectra of 60 gasoline samples, with their octane numbers.

    Each row of `data` is a spectrum: the absorbance log(1/R) of diffuse reflectance
    at 401 wavelengths from 900 to 1700 nm in steps of 2 nm (`grid`, in nm); `target`
    is the octane number of the sample.

    Returns
    -------
    Curves
        `data` (60, 401) float64, `grid` (401,) wavelengths in nm, `target` (60,)
        octane numbers (float), `target_names` empty.

    Notes
    -----
    Source: J. H. Kalivas (1997), *Two data sets of near infrared spectra*,
    Chemometrics and Intelligent Laboratory Systems 37(2), 255-259,
    https://doi.org/10.1016/S0169-7439(97)00038-5. The file is R's
    ``pls::gasoline`` (pls 2.8-1; K. H. Liland, B.-H. Mevik and R. Wehrens), written
    with six decimals (the absorbances) and two (the octane numbers), exactly as R
    holds them; sum of the spectra 2665.085391, mean octane number 87.1775.
    Licence: published measurements (facts), redistributed by R's pls package
    under the GPL-2.
    """
    with gzip.open(_DATA / "gasoline.csv.gz", "rt") as f:
        header = f.readline().strip().split(",")
        table = np.loadtxt(f, delimiter=",")
    return Curves(table[:, 1:], np.array([float(w) for w in header[1:]]), table[:, 0], [], "gasoline")


def load_co2() -> TimeSeries:
    """Monthly atmospheric CO2 concentration at Mauna Loa, January 1959 to December 1997.

    468 values in parts per million (ppm), on the preliminary 1997 SIO manometric
    mole fraction scale: a rising trend, a yearly cycle and noise.

    Returns
    -------
    TimeSeries
        `values` (468,) in ppm, `time` (468,) in years (1959.0, 1959.0833, ...,
        1997.9167), `frequency` 12.

    Notes
    -----
    Source: C. D. Keeling and T. P. Whorf, Scripps Institution of Oceanography,
    https://scrippsco2.ucsd.edu/data/atmospheric_co2/, as R's ``datasets::co2``
    (R 4.2.2; W. S. Cleveland (1993), *Visualizing Data*, Hobart Press). The values
    for February, March and April 1964 were missing and are R's linear
    interpolation between January and May 1964. Scripps revises its series: the
    current data differ slightly. The file (year, month, ppm) is R's series with
    two decimals, as R holds it; sum 157741.05, first value 315.42, last 364.34.
    Licence: the Scripps CO2 data are free to use with acknowledgement; R
    distributes this copy under the GPL (>= 2).
    """
    table = np.loadtxt(_DATA / "co2.csv", delimiter=",", skiprows=1)
    return TimeSeries(table[:, 2], table[:, 0] + (table[:, 1] - 1) / 12, 12, "co2")


def load_growth() -> Curves:
    """The Berkeley growth study: heights of 54 girls and 39 boys at 31 ages from 1 to 18.

    The ages are not evenly spaced: every quarter year from 1 to 2, every year from
    2 to 8, every half year from 8 to 18. Rows 0-53 are the girls (target 0), rows
    54-92 the boys (target 1).

    Returns
    -------
    Curves
        `data` (93, 31) heights in cm, `grid` (31,) ages in years, `target` (93,) in
        {0, 1}, `target_names` ``["girl", "boy"]``.

    Notes
    -----
    Source: R. D. Tuddenham and M. M. Snyder (1954), *Physical growth of California
    boys and girls from birth to age 18*, University of California Publications in
    Child Development 1, 183-364; the data set of J. O. Ramsay and B. W. Silverman
    (2005), *Functional Data Analysis* (2nd ed., Springer), as shipped in R's
    ``ddalpha::dataf.growth()`` (ddalpha 1.3.13, GPL-2). Heights in cm with one
    decimal, exactly as R holds them; sum 394551.3, mean height at 18 of the girls
    166.2944 and of the boys 180.2231. Licence: published measurements (facts),
    redistributed by ddalpha under the GPL-2.
    """
    with gzip.open(_DATA / "growth.csv.gz", "rt") as f:
        rows = list(csv.reader(f))
    ages = np.array([float(a) for a in rows[0][1:]])
    names = ["girl", "boy"]
    target = np.array([names.index(row[0]) for row in rows[1:]])
    heights = np.array([[float(v) for v in row[1:]] for row in rows[1:]])
    return Curves(heights, ages, target, names, "growth")
