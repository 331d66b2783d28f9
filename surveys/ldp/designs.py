"""A survey's design: which questions each respondent is asked, and what the whole body of
reports costs in epsilon.

A survey's questions form *blocks*: a question asked of everyone with its conditional
follow-ups (a follow-up travels with its condition). A survey either asks every question
(the body's epsilon is the sum of the questions' epsilons), or has a *sampled design*: a
whole-survey budget B, a number N of blocks asked, and some blocks *always asked*. Each
respondent's browser draws N of the other ("sampled") blocks uniformly at random, without
replacement and independently of every answer (``draw_blocks`` is the reference); the body
marks the blocks not drawn, and the drawn questions send their randomized reports as when
every question is asked.

Accounting (``body_epsilon``): the body's epsilon is the always-asked questions' epsilons plus
the N largest sampled blocks' totals. Every sampled question gets the same epsilon
(``sampled_epsilon``), so that this is exactly B.

Planning: a sampled block is drawn by N / blocks of the respondents (``asked_share``,
``expected_asked``), and ``recommended_asked`` picks the N with the narrowest margin.

Estimation needs nothing new: the draw is independent of the answers, so the respondents who
drew a question are a random part of all respondents, and today's estimators apply to their
reports, given how many they are. Pure numpy; no Django. Guide: docs/ldp.md, "Long
questionnaires: a random few questions per respondent".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from .checks import is_integer, is_real
from .mechanisms import MAX_EPSILON, MIN_EPSILON, check_epsilon


def _epsilons(values: Iterable[object]) -> list[float]:
    """Each value checked as a question's epsilon (``mechanisms.check_epsilon``)."""
    return [check_epsilon(value) for value in values]


def _check_asked(asked: object, blocks: int) -> int:
    """``asked`` as a whole number from 1 to ``blocks``, or ValueError."""
    if blocks == 0:
        raise ValueError(
            "a sampled design needs at least one block of questions that is not always "
            "asked: every question is always asked, so ask every question instead"
        )
    if not (is_integer(asked) and 1 <= asked <= blocks):
        raise ValueError(
            f"the number of blocks asked of each respondent must be a whole number from 1 to "
            f"{blocks} (the blocks not always asked), got {asked!r}"
        )
    return int(asked)


def body_epsilon(
    always: Sequence[float], blocks: Sequence[Sequence[float]], asked: int | None = None
) -> float:
    """The epsilon of everything one respondent sends: ``always`` holds the always-asked
    questions' epsilons, ``blocks`` one sequence of question epsilons per sampled block, and
    ``asked`` the number of blocks each respondent draws (None: every question is asked).

    It is sum(always) plus the sum of the ``asked`` largest block totals (with ``asked``
    None, the plain sum of every question's epsilon). Derivation: a body is the draw d (the
    set of blocks drawn) and the reports r_q of the questions asked, so for true answers x

        P(d, r | x) = P(d) prod_q P(r_q | x_q),   q over the always-asked questions and
                                                  those of the blocks in d,

    since the draw is independent of the answers and each report depends only on its
    question's answer. For two respondents' answers x and x', P(d) cancels and

        ln P(d, r | x) / P(d, r | x') = sum_q ln P(r_q | x_q) / P(r_q | x'_q)
                                     <= sum_q eps_q = sum(always) + (the totals of d's blocks),

    at most the largest such total over the d of ``asked`` blocks. The bound is reached: take
    d the ``asked`` largest blocks, and answers and reports that reach each question's
    epsilon at once (with the site's mechanisms any two different answers do, and a
    follow-up's "Not asked" against an answer goes with its condition's two answers). A
    block not drawn sends nothing but its mark, which has the same probability under any
    answers. ``tests/ldp/test_designs.py`` checks this by enumerating every body of small
    designs."""
    always_eps = _epsilons(always)
    totals = []
    for block in blocks:
        block_eps = _epsilons(block)
        if not block_eps:
            raise ValueError("every block holds at least one question")
        totals.append(math.fsum(block_eps))
    if asked is None:
        return math.fsum(always_eps + totals)
    asked = _check_asked(asked, len(totals))
    return math.fsum(always_eps + sorted(totals, reverse=True)[:asked])


def sampled_epsilon(
    budget: float, always: Sequence[float], block_sizes: Sequence[int], asked: int
) -> float:
    """The epsilon of every sampled question in a design with whole-survey ``budget``: the
    budget less the always-asked questions' epsilons (``always``), over the number of
    questions in the ``asked`` largest sampled blocks (``block_sizes``: the number of
    questions of each), so that ``body_epsilon`` of the design is exactly the budget.

    ValueError with a reason when ``asked`` is not from 1 to the number of sampled blocks,
    when there is no sampled block, when the always-asked questions leave nothing of the
    budget, or when the sampled questions' epsilon would fall outside ``MIN_EPSILON`` to
    ``MAX_EPSILON``."""
    if not (is_real(budget) and math.isfinite(budget) and budget > 0):
        raise ValueError(f"the survey's budget must be a positive number, got {budget!r}")
    always_eps = _epsilons(always)
    sizes = list(block_sizes)
    if not all(is_integer(size) and size >= 1 for size in sizes):
        raise ValueError(
            f"each sampled block holds a whole number of questions, at least 1, got {sizes!r}"
        )
    asked = _check_asked(asked, len(sizes))
    spent = math.fsum(always_eps)
    left = float(budget) - spent
    if not left > 0:
        raise ValueError(
            f"the always-asked questions spend epsilon {spent:g} of the survey's budget of "
            f"{budget:g}, leaving nothing for the sampled questions: raise the budget or "
            "lower the always-asked questions' epsilons"
        )
    questions = sum(sorted(sizes, reverse=True)[:asked])
    epsilon = left / questions
    if epsilon < MIN_EPSILON:
        raise ValueError(
            f"the budget left for the sampled questions, {left:g}, shared among the "
            f"{questions} questions a respondent can be asked, gives each epsilon "
            f"{epsilon:.3g}, below MIN_EPSILON = {MIN_EPSILON:g}: ask fewer blocks, raise the "
            "budget or lower the always-asked questions' epsilons"
        )
    if epsilon > MAX_EPSILON:
        raise ValueError(
            f"the sampled questions would get epsilon {epsilon:.3g}, above the maximum "
            f"{MAX_EPSILON:g}: lower the budget or ask more blocks"
        )
    return epsilon


def draw_blocks(blocks: int, asked: int, rng: np.random.Generator) -> np.ndarray:
    """The reference of the browser's draw: ``asked`` of the sampled blocks 0..``blocks``-1,
    uniformly over the subsets of that size, in increasing order. The first ``asked`` steps
    of a Fisher-Yates shuffle: step i swaps place i with a place drawn uniformly from i to
    blocks - 1 (the browser draws it with ``crypto.getRandomValues``, by rejection so that it
    is exactly uniform); every ordered choice of ``asked`` distinct blocks then has
    probability (blocks - asked)! / blocks!, so every subset has 1 / C(blocks, asked)."""
    if not (is_integer(blocks) and blocks >= 1):
        raise ValueError(f"blocks must be a whole number >= 1, got {blocks!r}")
    asked = _check_asked(asked, int(blocks))
    order = list(range(int(blocks)))
    for i in range(asked):
        j = i + int(rng.integers(0, blocks - i))
        order[i], order[j] = order[j], order[i]
    return np.sort(np.array(order[:asked], dtype=np.int64))


def asked_share(blocks: int, asked: int) -> float:
    """The share of respondents who draw a given sampled block: asked / blocks."""
    if not (is_integer(blocks) and blocks >= 1):
        raise ValueError(f"blocks must be a whole number >= 1, got {blocks!r}")
    return _check_asked(asked, int(blocks)) / int(blocks)


def expected_asked(respondents: int, blocks: int, asked: int) -> float:
    """How many of ``respondents`` are expected to draw a given sampled block:
    respondents * asked / blocks. The number is Binomial(respondents, asked / blocks); two
    sampled blocks are both drawn by respondents * asked (asked - 1) / (blocks (blocks - 1))
    on average."""
    if not (is_integer(respondents) and respondents >= 0):
        raise ValueError(f"respondents must be a whole number >= 0, got {respondents!r}")
    return int(respondents) * asked_share(blocks, asked)


def recommended_asked(
    budget: float,
    always: Sequence[float],
    block_sizes: Sequence[int],
    respondents: int,
    margin: Callable[[float, float], float],
    choices: Iterable[int] | None = None,
) -> int:
    """The number of blocks to ask of each respondent with the narrowest margin:
    ``margin(epsilon, n)`` is the margin the planner cares about when a sampled question has
    ``epsilon`` (``sampled_epsilon``) and n respondents draw it (``expected_asked``, a float),
    for instance the widest of the sampled questions' margins, each as a share of its range.
    Tried: ``choices`` (default every N from 1 to the number of sampled blocks), leaving out
    those whose epsilon ``sampled_epsilon`` refuses; the smaller N on a tie. ValueError
    when it refuses them all."""
    blocks = len(block_sizes)
    candidates = range(1, blocks + 1) if choices is None else list(choices)
    found: list[tuple[float, int]] = []
    problems = []
    for asked in candidates:
        try:
            epsilon = sampled_epsilon(budget, always, block_sizes, asked)
        except ValueError as error:
            problems.append(str(error))
            continue
        found.append((margin(epsilon, expected_asked(respondents, blocks, asked)), asked))
    if not found:
        raise ValueError(problems[0] if problems else "no number of blocks to try")
    return min(found)[1]
