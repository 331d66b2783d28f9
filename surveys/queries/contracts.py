"""The shapes of what the read side hands to pages, scripts and programs: the results JSON,
the breakdown JSON (two-way and three-way), the regression JSON and the metadata export.
Templates, the pages' scripts, the CSV columns and docs/results-api.md and docs/exports.md
read these fields; a test checks that the docs name every one, and that the JSON has exactly
them. Adding a field here is the one place to start (and a reason to bump
``results.RESULTS_VERSION``)."""

from __future__ import annotations

from typing import Any

# typing_extensions' TypedDict, which pydantic reads on Python 3.11 too, so that the API's
# OpenAPI description (surveys.views.api) is made from these very types.
from typing_extensions import TypedDict


class Method(TypedDict):
    name: str
    description: str


class Methods(TypedDict):
    estimate: Method
    interval: Method
    mean_score: Method
    among: Method
    among_asked: Method
    number: Method


class Wordings(TypedDict):
    count: int  # the wordings respondents saw: those with responses, and the current one
    latest: Any  # when the current wording began (a datetime; ISO 8601 in JSON), or None
    responses: int | None  # responses since it began (None: not counted, or no wording)


class SurveySummary(TypedDict):
    id: int
    title: str
    status: str
    opened_at: str | None
    closed_at: str | None
    responses: int
    total_epsilon: float


class CategoryResults(TypedDict):
    index: int
    label: str
    estimate: float
    ci_low: float
    ci_high: float
    small_sample: bool
    support_count: int
    unbiased: float
    std_error: float
    unbiased_ci_low: float
    unbiased_ci_high: float
    mle: float
    consistent: float
    truth: float | None


class MeanScore(TypedDict):
    estimate: float | None
    ci_low: float | None
    ci_high: float | None


class QuestionMeanScore(MeanScore):
    unbiased: float | None
    std_error: float | None


class AmongCategory(TypedDict):
    index: int
    label: str
    estimate: float | None
    ci_low: float
    ci_high: float


class Among(TypedDict):
    among: str  # "answered" (some may refuse or skip), or "asked" (a conditional question)
    method: str  # the key in methods of how: "among_asked" (with the condition), or "among"
    answered: float | None  # the share of respondents who gave one of its own answers
    categories: list[AmongCategory]


class Anchor(TypedDict):
    answer: str
    known: float
    p_value: float | None
    agrees: bool
    careless: float | None
    careless_low: float | None
    careless_high: float | None


class QuestionResults(TypedDict):
    id: int
    position: int
    text: str
    kind: str
    used_for_breakdowns: bool
    labels: list[str]
    mechanism: dict[str, Any]  # the frozen spec: ``surveys.ldp.from_spec`` rebuilds it
    mechanism_label: str
    n: int
    margin_of_error: float | None
    n_for_target_margin: int | None
    more_for_target_margin: int | None
    small_sample: bool
    large_margin: bool
    warning: bool
    categories: list[CategoryResults] | None
    mean_score: QuestionMeanScore | None  # rating scales only (points 1..k)
    anchor: Anchor | None  # validation anchors only (a known true share)
    mean_count: QuestionMeanScore | None  # check-all questions only: options ticked, 0..k
    extra_answers: int  # its last answers that are not its own: "No answer", "Not asked"
    among: Among | None  # with extra answers: its own answers' shares among those who gave one
    number: NumberResults | None  # number questions only


class NumberResults(TypedDict):
    low: float
    high: float
    decimals: int
    edges: list[float]
    mean: QuestionMeanScore  # in the question's unit; estimate None without reports
    mean_margin: float | None  # half-width of the mean's 95% interval now, worst case
    target_margin: float  # 5% of the range
    n_for_target_margin: int | None
    answered: float | None  # with extra answers: the share who gave a number, whose mean it is


class SurveyResults(TypedDict):
    survey: SurveySummary
    snapshot: str | None
    as_of: Any  # when these figures were computed (a datetime; ISO 8601 in JSON)
    new_responses: int  # responses received since, not yet in these figures
    wordings: Wordings
    methods: Methods
    questions: list[QuestionResults]


class BreakdownSurvey(TypedDict):
    id: int
    title: str
    status: str


class BreakdownQuestion(TypedDict):
    id: int
    position: int
    text: str
    labels: list[str]
    epsilon: float
    mechanism_label: str


class GroupAnswer(TypedDict):
    index: int
    label: str
    share: float | None
    ci_low: float | None
    ci_high: float | None
    joint: float | None
    joint_ci_low: float | None
    joint_ci_high: float | None
    truth: float | None


class Group(TypedDict):
    index: int
    label: str
    size: float | None
    share: float | None
    ci_low: float | None
    ci_high: float | None
    small: bool
    answers: list[GroupAnswer]
    mean_score: MeanScore | None  # rating scales only
    mean: MeanScore | None  # number questions only, in the question's unit


class DifferenceAnswer(TypedDict):
    index: int
    label: str
    estimate: float | None
    ci_low: float | None
    ci_high: float | None


class Difference(TypedDict):
    groups: list[int]
    labels: list[str]
    answers: list[DifferenceAnswer]
    mean_score: MeanScore | None  # rating scales only: the first group's minus the second's
    mean: MeanScore | None  # number questions only: the first group's minus the second's


class Association(TypedDict):
    statistic: float | None
    df: int
    p_value: float | None
    evidence: bool
    summary: str


class BreakdownMethods(TypedDict):
    joint: str
    share_interval: str
    difference_interval: str
    association: str
    mean_score: str
    mean: str


class BreakdownResults(TypedDict):
    survey: BreakdownSurvey
    n: int
    question: BreakdownQuestion
    by: BreakdownQuestion
    groups: list[Group]
    difference: Difference
    association: Association
    methods: BreakdownMethods
    snapshot: str
    number: dict[str, Any] | None  # number questions: low, high, decimals


class StratifiedMethods(BreakdownMethods):
    stratum_association: str


class Stratum(TypedDict):
    index: int
    label: str
    size: float | None
    share: float | None
    ci_low: float | None
    ci_high: float | None
    groups: list[Group]  # shares of all respondents; answers' shares within the group
    association: Association  # whether the answers differ between the groups, in the stratum


class StratifiedResults(TypedDict):
    survey: BreakdownSurvey
    n: int
    question: BreakdownQuestion
    by: BreakdownQuestion
    within: BreakdownQuestion
    strata: list[Stratum]
    methods: StratifiedMethods
    snapshot: str


class RegressionCoefficient(TypedDict):
    kind: str  # "answer" (a dummy against the reference answer) or "score" (per scale point)
    label: str
    index: int | None  # the answer of a dummy
    estimate: float | None  # an odds ratio (logistic) or a difference of means (linear)
    ci_low: float | None  # None: unbounded on that side
    ci_high: float | None
    coefficient: float | None  # the model's own: log odds ratio, or the difference itself
    std_error: float | None  # of the coefficient


class RegressionPrediction(TypedDict):
    index: int
    label: str
    estimate: float | None  # predicted share of Yes, or mean, if everyone gave it
    ci_low: float | None
    ci_high: float | None
    group_share: float | None  # estimated share of respondents whose true answer it is


class RegressionPredictor(TypedDict):
    id: int
    position: int
    text: str
    labels: list[str]
    reference: str | None  # the answer the odds ratios compare with (None for a scale)
    scored: bool
    coefficients: list[RegressionCoefficient]
    statistic: float | None  # likelihood-ratio test that all its coefficients are 0
    df: int | None
    p_value: float | None
    evidence: bool
    summary: str
    predictions: list[RegressionPrediction]


class RegressionOutcome(TypedDict):
    id: int
    position: int
    text: str
    labels: list[str]


class RegressionResults(TypedDict):
    survey: BreakdownSurvey
    n: int
    model: str  # "logistic" (a yes/no question) or "linear" (a rating scale or a number)
    outcome: RegressionOutcome
    answered: float | None  # estimated share who answered the outcome (not an extra answer)
    weak: bool  # some coefficient's interval unbounded: the reports say too little
    identified: bool  # False: some coefficient's maximum is at infinity, no interval or test
    number: dict[str, Any] | None  # a number outcome: low, high, decimals (its unit)
    predictors: list[RegressionPredictor]
    method: Method
    snapshot: str


class MetadataSurvey(TypedDict):
    title: str
    status: str
    opened_at: str | None
    total_epsilon: float
    language: str
    study_by: str
    study_contact: str
    ethics_reference: str
    consent_required: bool
    translations: dict[str, dict[str, Any]]
    # With a design (each respondent answers a random few): {"budget", "asked",
    # "always_asked" (positions), "drawn" (the blocks drawn from, as lists of positions)}.
    design: dict[str, Any] | None


class QuestionMetadata(TypedDict):
    position: int
    text: str
    help_text: str
    kind: str
    labels: list[str]
    extra_answers: int  # its last labels that are not its own answers: "No answer", "Not asked"
    asked_if: dict[str, int] | None  # a conditional question: {"position", "answer" (index)}
    anchor: dict[str, Any] | None  # a validation anchor: {"answer" (index), "known" (share)}
    columns: list[str]
    encoding: str
    epsilon: float
    mechanism: dict[str, Any]
    mechanism_label: str
    reading: str
    randomization_matrix: list[list[float]] | None
    rrreg: str | None
    rrlogit: str | None
    translations: dict[str, dict[str, Any]]
    scores: list[int] | None  # rating scales only: the score of each label, 1..k
    unbiased_values: list[float] | None  # number questions only: each cell's unbiased value
    answered_values: list[float] | None  # number questions only: each cell's answered value
    # After the report columns, what a number's or a check-all report says, in the question's
    # terms (surveys.queries.readable): {"name", "description", "value_labels" (or None)}.
    readable_columns: list[dict[str, Any]]
    cell_labels: list[str] | None  # number questions only: what each cell stands for


class Metadata(TypedDict):
    survey: MetadataSurvey
    privacy: str
    rows: str
    questions: list[QuestionMetadata]
    wordings: list[dict[str, Any]]
