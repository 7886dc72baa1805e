r"""Progress reports of long fits: what ``verbose=True`` shows.

One small API for every long fit of pcalib (EM, iterative PCA, robust PCA and the
bootstrap)::

    with progress(verbose, total=max_iter, description="PPCA EM") as report:
        for t in range(max_iter):
            ...
            report.update(loglik=L)          # one step done, with what to show
            if converged:
                report.done(f"converged in {t + 1} iterations")
                break

* ``verbose`` False (or 0): nothing is shown and nothing is imported; the calls cost a
  method call each.
* ``verbose`` True and tqdm installed: a tqdm bar on stderr, its postfix showing the
  values given to :meth:`Progress.update`.
* ``verbose`` True without tqdm: one line on stderr per report, a report being the
  first step, then at most one step every ``interval`` seconds (1 by default), and
  the closing message; each line reads ``description: step t/total, name=value ...``.

tqdm is optional: pcalib never requires it.
"""

from __future__ import annotations

import importlib
import sys
import time
from types import TracebackType
from typing import Any, TextIO

__all__ = ["SILENT", "Progress", "progress"]


def _shown(value: object) -> str:
    """A value as a progress line shows it: floats with 4 significant digits."""
    return f"{value:.4g}" if isinstance(value, float) else str(value)


class Progress:
    """The progress of one fit; built by :func:`progress`, used as a context manager.

    Parameters
    ----------
    verbose : bool
        Show anything at all.
    total : int
        The most steps the fit may take (its ``max_iter``).
    description : str
        What is running, the start of every line (the bar's label with tqdm).
    interval : float
        Without tqdm, the fewest seconds between two lines (0: a line per step).
    stream : file, optional
        Where the lines go (default ``sys.stderr``, read when the report is made).
    use_tqdm : bool
        Use tqdm when it can be imported (False: plain lines, whatever is installed).
    """

    def __init__(
        self,
        verbose: bool,
        total: int,
        description: str,
        *,
        interval: float = 1.0,
        stream: TextIO | None = None,
        use_tqdm: bool = True,
    ) -> None:
        self.verbose, self.total, self.description = bool(verbose), int(total), description
        self.interval, self.stream = float(interval), stream
        self.steps = 0
        self._last_line = -float("inf")
        self._bar: Any = None
        if self.verbose and use_tqdm:
            try:
                tqdm = importlib.import_module("tqdm.auto").tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self._bar = tqdm(total=self.total, desc=description, file=stream, leave=True)

    def _line(self, text: str) -> None:
        print(f"{self.description}: {text}", file=self.stream or sys.stderr, flush=True)

    def update(self, *, advance: int = 1, **values: object) -> None:
        """`advance` more steps done (one by default); `values` (name=value) are what
        to show with them."""
        if not self.verbose:
            return
        self.steps += advance
        shown = ", ".join(f"{name}={_shown(value)}" for name, value in values.items())
        if self._bar is not None:
            self._bar.update(advance)
            if shown:
                self._bar.set_postfix_str(shown, refresh=False)
            return
        now = time.monotonic()
        if self.steps == 1 or now - self._last_line >= self.interval:
            self._last_line = now
            self._line(f"step {self.steps}/{self.total}" + (f", {shown}" if shown else ""))

    def done(self, message: str) -> None:
        """Say how the fit ended (a last line; the bar's closing text with tqdm)."""
        if not self.verbose:
            return
        if self._bar is not None:
            self._bar.set_postfix_str(message)
            self._bar.close()
            self._bar = None
            return
        self._line(message)

    def close(self) -> None:
        """End the report (the bar is closed; without tqdm nothing more is shown)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def progress(verbose: object, total: int, description: str, **options: Any) -> Progress:
    """The progress report of a fit: see the module's docstring and :class:`Progress`.

    `verbose` must be True or False (an estimator's ``verbose`` parameter, checked
    here so that every fit refuses the same values): ``TypeError`` otherwise.
    """
    if not isinstance(verbose, bool) and not (isinstance(verbose, int) and verbose in (0, 1)):
        raise TypeError(f"verbose must be True or False, got {verbose!r}")
    return Progress(bool(verbose), total, description, **options)


#: The report of a fit that shows nothing: the default of the helpers that take one.
SILENT = Progress(False, 0, "")
