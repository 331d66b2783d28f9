"""Argument checks and small helpers that every layer of the core shares.

Every check returns the value in its plain Python type, or raises ValueError with a message
meant for a person.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np


def is_real(x: object) -> bool:
    """A real number that is not a bool (ints, floats, numpy scalars)."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def is_integer(x: object) -> bool:
    """A whole number that is not a bool (ints, numpy integers)."""
    # The first test is the common case (JSON integers) and much faster than the ABC check.
    return type(x) is int or (isinstance(x, numbers.Integral) and not isinstance(x, bool))


def check_probability(name: str, value: object) -> float:
    """``value`` as a float strictly between 0 and 1."""
    if not (is_real(value) and 0 < value < 1):
        raise ValueError(f"{name} must be a number strictly between 0 and 1, got {value!r}")
    return float(value)


def check_n(n: object) -> int:
    """A number of reports: a whole number >= 0."""
    if not (is_integer(n) and n >= 0):
        raise ValueError(f"n (the number of reports) must be a whole number >= 0, got {n!r}")
    return int(n)


def read_only(a: np.ndarray) -> np.ndarray:
    """A read-only copy of ``a`` (the caller's array stays writable)."""
    a = np.array(a)
    a.setflags(write=False)
    return a


def json_floats(a: np.ndarray) -> Any:
    """``a`` as nested lists of floats with NaN -> None: the results' ``to_dict``."""
    if np.ndim(a) == 0:
        return float(a) if math.isfinite(a) else None
    return [json_floats(x) for x in a]
