"""A survey's design (surveys/ldp/designs.py): the whole body's epsilon by enumerating every
body of small designs, the sampled questions' epsilon, bad designs refused, and the
reference draw's uniformity.

The statistical test has a fixed seed and a tolerance from theory, stated where it is made.
"""

import itertools
import math

import numpy as np
import pytest
from scipy.stats import chi2

from surveys import ldp

YES_NO = 2
FOLLOW_UP = 3  # a yes/no follow-up's answers: No, Yes, and "Not asked" (its condition's No)
NOT_ASKED = 2


def mechanism(kind, epsilon):
    """A question's randomizer as the site builds it: randomized response for yes/no,
    generalized randomized response for three answers."""
    return ldp.randomized_response(epsilon) if kind == YES_NO else ldp.grr(epsilon, kind)


def answer_vectors(blocks):
    """Every vector of true answers the questions can take together: a block is a list of
    kinds, and a FOLLOW_UP after a yes/no question is "Not asked" exactly when that answer
    is No (0)."""
    per_block = []
    for kinds in blocks:
        answers = []
        for values in itertools.product(*(range(kind) for kind in kinds)):
            consistent = all(
                (values[i] == NOT_ASKED) == (values[i - 1] == 0)
                for i, kind in enumerate(kinds) if kind == FOLLOW_UP and i > 0
            )
            if consistent:
                answers.append(values)
        per_block.append(answers)
    return list(itertools.product(*per_block))


def enumerated_epsilon(blocks, epsilons, always, asked):
    """max over two answer vectors and every body (the draw's marks, then every drawn
    question's report) of ln P(body | x) / P(body | x'), from the questions' matrices
    P(report | answer). ``blocks``: the kinds of each block's questions; ``epsilons``: their
    epsilons; ``always``: how many of the first blocks are always asked; ``asked``: how many
    of the others each respondent draws (None: every block is asked)."""
    matrices = [[mechanism(k, e).matrix() for k, e in zip(kinds, eps, strict=True)]
                for kinds, eps in zip(blocks, epsilons, strict=True)]
    sampled = range(always, len(blocks))
    draws = ([tuple(sampled)] if asked is None
             else list(itertools.combinations(sampled, asked)))
    vectors = answer_vectors(blocks)
    worst = -math.inf
    for draw in draws:
        shown = list(range(always)) + list(draw)
        # P(draw) is 1 / C(blocks, asked) under any answers: it is in every body's
        # probability, and cancels in the ratio.
        p_draw = 1 / len(draws)
        questions = [(b, i) for b in shown for i in range(len(blocks[b]))]
        laws = []
        for x in vectors:
            law = np.full((1,), p_draw)
            for b, i in questions:  # the reports of a drawn question, given its answer
                law = np.multiply.outer(law, matrices[b][i][:, x[b][i]]).ravel()
            laws.append(law)
        laws = np.array(laws)  # (answer vectors, bodies with this draw)
        assert laws.sum(axis=1) == pytest.approx(p_draw, rel=1e-12)
        worst = max(worst, float(np.max(np.log(laws.max(axis=0) / laws.min(axis=0)))))
    return worst


# Four questions: a yes/no condition with its yes/no follow-up (one block), a three-answer
# question and a yes/no question.
FOUR = [[YES_NO, FOLLOW_UP], [3], [YES_NO]]


@pytest.mark.parametrize("asked", [1, 2])
def test_the_body_of_a_sampled_design_costs_exactly_the_budget(asked):
    """With every sampled question at ``sampled_epsilon``, the enumerated epsilon of the
    whole body, ``body_epsilon`` and the budget agree to 1e-9."""
    budget = 3.0
    sizes = [len(block) for block in FOUR]
    epsilon = ldp.sampled_epsilon(budget, [], sizes, asked)
    epsilons = [[epsilon] * size for size in sizes]
    figure = ldp.body_epsilon([], epsilons, asked)
    assert figure == pytest.approx(budget, abs=1e-9)
    assert enumerated_epsilon(FOUR, epsilons, 0, asked) == pytest.approx(budget, abs=1e-9)


@pytest.mark.parametrize("asked", [1, 2])
def test_an_always_asked_question_spends_from_the_same_budget(asked):
    """The yes/no question always asked at 0.8, the other blocks sampled: exactly B."""
    blocks = [[YES_NO], [YES_NO, FOLLOW_UP], [3], [YES_NO]]
    budget = 2.5
    sizes = [len(block) for block in blocks[1:]]
    epsilon = ldp.sampled_epsilon(budget, [0.8], sizes, asked)
    epsilons = [[0.8]] + [[epsilon] * size for size in sizes]
    assert ldp.body_epsilon([0.8], epsilons[1:], asked) == pytest.approx(budget, abs=1e-9)
    assert enumerated_epsilon(blocks, epsilons, 1, asked) == pytest.approx(budget, abs=1e-9)


@pytest.mark.parametrize("asked", [1, 2, 3, None])
def test_the_body_costs_the_largest_blocks_whatever_the_questions_epsilons(asked):
    """Blocks of unequal totals (1.3, 1.2 and 0.35): the body costs the ``asked`` largest
    (1.3; 2.5; 2.85; every question asked, 2.85), by enumeration and by ``body_epsilon``;
    neither the sum of every question nor ``asked`` times the average block."""
    epsilons = [[0.4, 0.9], [1.2], [0.35]]
    expected = {1: 1.3, 2: 2.5, 3: 2.85, None: 2.85}[asked]
    assert ldp.body_epsilon([], epsilons, asked) == pytest.approx(expected, abs=1e-12)
    assert enumerated_epsilon(FOUR, epsilons, 0, asked) == pytest.approx(expected, abs=1e-9)


def test_asking_every_question_costs_the_plain_sum():
    assert ldp.body_epsilon([0.5, 0.25], [[0.5, 1.0], [2.0]]) == pytest.approx(4.25)
    assert ldp.body_epsilon([1.0, 2.0], []) == pytest.approx(3.0)


def test_sampled_epsilon_shares_the_budget_left_among_the_largest_blocks():
    """B = 3, always-asked 0.5 + 0.5, blocks of 1, 3, 2 and 1 questions, two drawn: the
    two largest blocks hold 5 questions, so each sampled question gets (3 - 1) / 5."""
    assert ldp.sampled_epsilon(3.0, [0.5, 0.5], [1, 3, 2, 1], 2) == pytest.approx(0.4)
    assert ldp.sampled_epsilon(3, [], [1] * 20, 3) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("budget", "always", "sizes", "asked", "message"),
    [
        (3.0, [], [1, 1, 1], 0, "from 1 to 3"),
        (3.0, [], [1, 1, 1], 4, "from 1 to 3"),
        (3.0, [], [1, 1, 1], 1.0, "whole number"),
        (3.0, [], [1, 1, 1], True, "whole number"),
        (3.0, [1.0, 1.0], [], 1, "every question is always asked"),
        (3.0, [1.5, 1.5], [1, 1], 1, "leaving nothing"),
        (3.0, [2.0, 2.0], [1, 1], 1, "leaving nothing"),
        (1.0, [0.995], [1, 1], 1, "below MIN_EPSILON"),
        (0.5, [], [30, 30, 30], 2, "below MIN_EPSILON"),
        (25.0, [], [1, 1], 1, "above the maximum"),
        (0.0, [], [1, 1], 1, "positive number"),
        (math.inf, [], [1, 1], 1, "positive number"),
        (3.0, [0.001], [1, 1], 1, "MIN_EPSILON"),
        (3.0, [], [1, 0], 1, "at least 1"),
    ],
)
def test_bad_designs_are_refused_with_a_reason(budget, always, sizes, asked, message):
    with pytest.raises(ValueError, match=message):
        ldp.sampled_epsilon(budget, always, sizes, asked)


def test_body_epsilon_refuses_bad_blocks():
    with pytest.raises(ValueError, match="from 1 to 2"):
        ldp.body_epsilon([], [[1.0], [1.0]], 3)
    with pytest.raises(ValueError, match="always asked"):
        ldp.body_epsilon([1.0], [], 1)
    with pytest.raises(ValueError, match="at least one question"):
        ldp.body_epsilon([], [[1.0], []], 1)
    with pytest.raises(ValueError, match="MIN_EPSILON"):
        ldp.body_epsilon([], [[1.0], [-1.0]], 1)


DRAWS = 20_000


def chi_square(draw, blocks, asked):
    """Pearson's statistic of DRAWS draws ``draw(blocks, asked, rng)`` (fixed seed) against
    DRAWS / C(blocks, asked) of each subset, and its 1 - 1e-6 quantile under a uniform draw
    (chi-square with C - 1 degrees of freedom): a uniform draw exceeds it once in a
    million."""
    rng = np.random.default_rng(20261203)
    subsets = {s: i for i, s in enumerate(itertools.combinations(range(blocks), asked))}
    counts = np.zeros(len(subsets))
    for _ in range(DRAWS):
        drawn = draw(blocks, asked, rng)
        assert len(set(drawn.tolist())) == asked
        counts[subsets[tuple(drawn.tolist())]] += 1
    expected = DRAWS / len(subsets)
    return float(np.sum((counts - expected) ** 2 / expected)), chi2.ppf(1 - 1e-6, len(subsets) - 1)


@pytest.mark.parametrize(("blocks", "asked"), [(5, 2), (6, 1), (4, 3)])
def test_the_reference_draw_is_uniform_over_the_subsets(blocks, asked):
    statistic, limit = chi_square(ldp.draw_blocks, blocks, asked)
    assert statistic < limit


def naive_draw(blocks, asked, rng):
    """The classic slip: each step swaps with a place drawn from all of them, not from i on."""
    order = list(range(blocks))
    for i in range(asked):
        j = int(rng.integers(0, blocks))
        order[i], order[j] = order[j], order[i]
    return np.sort(np.array(order[:asked]))


@pytest.mark.parametrize(("blocks", "asked"), [(5, 2), (4, 3)])
def test_the_same_chi_square_test_refuses_a_wrong_shuffle(blocks, asked):
    """The test has power: the naive shuffle draws the subset {0, 1} of 5 blocks 1.6 times
    as often as it should (noncentrality 1,440 at 20,000 draws, against a quantile of 45)."""
    statistic, limit = chi_square(naive_draw, blocks, asked)
    assert statistic > limit


def test_the_share_asked_and_the_expected_respondents():
    assert ldp.asked_share(20, 3) == pytest.approx(0.15)
    assert ldp.expected_asked(5000, 20, 3) == pytest.approx(750)
    with pytest.raises(ValueError, match="from 1 to 20"):
        ldp.asked_share(20, 21)


def test_the_recommended_number_has_the_narrowest_margin():
    """At B = 3 with 20 yes/no questions, 5,000 respondents and a 20% share, one question
    at epsilon 3 (250 respondents each) is narrowest; with a budget of 20 and two questions
    (each at epsilon 20 when one is drawn, hardly better than at 10) both are."""
    def share_margin(epsilon, n):
        return ldp.randomized_response(epsilon).margin_of_error(round(n), share=0.2)

    assert ldp.recommended_asked(3.0, [], [1] * 20, 5000, share_margin) == 1
    margins = {
        asked: share_margin(3 / asked, 5000 * asked / 20) for asked in range(1, 21)
    }
    assert min(margins, key=margins.get) == 1
    assert ldp.recommended_asked(20.0, [], [1, 1], 1000, share_margin) == 2
    assert ldp.recommended_asked(3.0, [], [1] * 20, 5000, share_margin, choices=[2, 3, 5]) == 2
    with pytest.raises(ValueError, match="below MIN_EPSILON"):
        ldp.recommended_asked(0.01, [], [5, 5], 1000, share_margin)


@pytest.mark.parametrize("questions", [2, 3, 4])
def test_fake_reports_give_the_whole_body_no_amplification(questions):
    """RS+FD (one question's answer randomized at epsilon', a uniform fake report for each of
    the others, and nothing saying which is true): enumerating every body of yes/no reports,
    the whole body costs epsilon' itself, not the amplified epsilon of one answer
    ln((e^eps' - 1) / d + 1) (Arcolezi et al. 2021): the worst case is two respondents whose
    answers all differ and a body equal to the first one's answers."""
    epsilon = 2.0
    matrix = ldp.randomized_response(epsilon).matrix()
    bodies = list(itertools.product((0, 1), repeat=questions))
    answers = list(itertools.product((0, 1), repeat=questions))
    laws = np.array([
        [sum(matrix[r[j], x[j]] for j in range(questions)) / questions
         * 0.5 ** (questions - 1) for r in bodies]
        for x in answers
    ])
    assert laws.sum(axis=1) == pytest.approx(1.0)
    whole = float(np.max(np.log(laws.max(axis=0) / laws.min(axis=0))))
    assert whole == pytest.approx(epsilon, abs=1e-9)
    one_answer = math.log((math.exp(epsilon) - 1) / questions + 1)
    changed_one = max(  # answers differing in one question only
        float(np.max(np.log(laws[i] / laws[k])))
        for i, x in enumerate(answers) for k, x2 in enumerate(answers)
        if sum(a != b for a, b in zip(x, x2, strict=True)) == 1
    )
    assert changed_one == pytest.approx(one_answer, abs=1e-9)
