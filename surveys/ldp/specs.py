"""Specs: a mechanism as JSON (for the browser, and frozen in the database), and the
mechanism built again from it.

Each kind of mechanism registers its builder, and the spec's entries the builder takes, in
the module that defines it (``register``): one question's randomizers in ``mechanisms``,
check-all questions' in ``checkall``, numbers' in ``numbers``. Importing ``surveys.ldp``
imports them all, so ``from_spec`` knows every mechanism while this module knows none, the
way Django's apps registry knows every model once the apps are loaded.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

_BUILDERS: dict[str, tuple[Callable[..., Any], tuple[str, ...], frozenset[str]]] = {}
"""Per "mechanism" name: the builder, the spec's entries it takes, those a spec may lack."""


def register(
    name: str, build: Callable[..., Any], parameters: Iterable[str], optional: Iterable[str] = ()
) -> None:
    """Let ``from_spec`` build the specs whose "mechanism" is ``name``: ``build`` called with
    the spec's ``parameters`` as keywords. ``optional`` names the parameters a spec may lack
    (specs frozen before the parameter existed); the builder's default then applies."""
    _BUILDERS[name] = (build, tuple(parameters), frozenset(optional))


def from_spec(spec: dict[str, Any]) -> Any:
    """Rebuild a mechanism from its ``spec()`` output (e.g. as frozen in the database).

    Needs "mechanism" and its parameters; every other key present must equal what the
    rebuilt mechanism computes (p, q, epsilon, ...), exactly. A mismatch raises ValueError
    rather than analysing reports with probabilities other than those they were randomized
    with.

    A spec always gives the same mechanism, and a mechanism is never changed once built, so
    each spec is built once per process and shared: building the four of a cached regression
    page took 0.31-0.39 ms, looking them up 0.03 ms (docs/ldp.md, "Specs: freezing a
    mechanism").
    """
    try:
        key = json.dumps(spec, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):  # not plain JSON: built, but not kept
        return _built(spec)
    return _built_once(key)


@lru_cache(maxsize=1024)
def _built_once(key: str) -> Any:
    return _built(json.loads(key))


def _built(spec: Any) -> Any:
    if not isinstance(spec, dict) or spec.get("mechanism") not in _BUILDERS:
        raise ValueError(f"a spec must be a dict whose 'mechanism' is one of {sorted(_BUILDERS)}")
    build, names, optional = _BUILDERS[spec["mechanism"]]
    missing = [name for name in names if name not in spec and name not in optional]
    if missing:
        raise ValueError(f"spec for {spec['mechanism']!r} lacks {', '.join(missing)}")
    mechanism = build(**{name: spec[name] for name in names if name in spec})
    expected = mechanism.spec()
    wrong = sorted(key for key in spec if key not in expected or spec[key] != expected[key])
    if wrong:
        raise ValueError(f"spec does not match the {spec['mechanism']!r} mechanism at: {wrong}")
    return mechanism
