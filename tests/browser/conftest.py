"""Fixtures of the browser tests alone (the browser itself is in tests/conftest.py)."""

import os

import pytest

from tests.helpers import AXE, Audit


@pytest.fixture
def axe():
    """audit(page, label) -> violations: injects axe-core into the page as it is now, runs
    axe.run() and prints the violations by impact with their rule ids; check() fails the test
    if any audited page had a serious or critical one (after all pages were printed)."""
    if not AXE.exists():
        message = f"{AXE} is missing: run `make install` (npm ci) to install axe-core."
        if os.getenv("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(message)
        pytest.skip(message)
    return Audit()
