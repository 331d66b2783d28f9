"""What respondents send: randomized reports (never true answers), the counts kept from them,
and single-use invitations. Nothing here records who sent what, from where or when in the day."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from surveys.models.survey import Question, Survey, new_public_id


class Submission(models.Model):
    """One respondent's randomized reports, all in one row (each submission is written whole
    or not at all, and one row is the cheapest thing to write). Holds no IP, user agent or
    time of day: only the date."""

    # No index of its own: the unique constraint below starts with survey and serves lookups.
    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="submissions", db_index=False
    )
    received_on = models.DateField(default=timezone.localdate)
    # Random key chosen by the respondent's browser so a retried request stores nothing new.
    idempotency_key = models.CharField(max_length=64)
    reports = models.JSONField(
        default=dict,
        editable=False,
        help_text="Question id -> its randomized report, as the browser sent it: 0 or 1 "
        "(yes/no), a category number, or a list of 0s and 1s, one per category.",
    )
    # The wording version (Survey.wording_version) the respondent's page showed: the same for
    # everyone who loaded the page between two corrections, so it says nothing else about
    # them. None for submissions stored before it was recorded.
    wording = models.PositiveIntegerField(null=True, blank=True, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "idempotency_key"], name="submission_idempotency_unique"
            ),
        ]
        # Breakdowns read a survey's submissions after a given id (surveys.queries.breakdowns).
        indexes = [models.Index(fields=["survey", "id"], name="submission_survey_id")]

    def __str__(self) -> str:
        return f"Submission {self.pk}"


class Tally(models.Model):
    """How many reports of a question support category `index` (its support count)."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="tallies")
    index = models.PositiveIntegerField()
    count = models.PositiveBigIntegerField(default=0)

    class Meta:
        ordering = ["question", "index"]
        constraints = [
            models.UniqueConstraint(fields=["question", "index"], name="tally_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.count} reports support category {self.index}"


class PairTally(models.Model):
    """The pair counts of two questions of a survey (``joint.PairCounts``, as JSON), folded in
    from the submissions up to ``through`` (a submission id) by ``surveys.queries.breakdowns``.

    Stored once per pair, ``question_a`` being the one with the smaller id. Correct because
    one survey's submissions get their ids in the order they commit:
    ``surveys.actions.submissions.store`` takes the survey row's lock (its counter update)
    before inserting, and holds it to the commit, so a submission is never committed after
    one with a larger id of the same survey.
    """

    question_a = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    question_b = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    counts = models.JSONField()
    through = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["question_a", "question_b"], name="pair_tally_unique"),
            models.CheckConstraint(
                condition=models.Q(question_a__lt=models.F("question_b")),
                name="pair_tally_ordered",
            ),
        ]

    def __str__(self) -> str:
        return f"Pair counts of questions {self.question_a_id} and {self.question_b_id}"


class TripleTally(models.Model):
    """The counts of a three-way breakdown (``strata.triple_counts``, as ``joint.PairCounts``
    JSON): ``question`` by ``group`` within each stratum of ``stratum``, folded in from the
    submissions up to ``through`` like ``PairTally`` (correct for the same reason). Stored
    once per ordered triple: the rows are the pairs of ``group``'s and ``stratum``'s reports."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    group = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    stratum = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    counts = models.JSONField()
    through = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["question", "group", "stratum"], name="triple_tally_unique"
            ),
        ]

    def __str__(self) -> str:
        return (
            f"Counts of question {self.question_id} by {self.group_id} within {self.stratum_id}"
        )


class CombinationTally(models.Model):
    """How many submissions sent each combination of several questions' reports: a
    regression's counts (an array with one axis per question, flattened, as JSON), folded in
    from the submissions up to ``through`` like ``PairTally`` (correct for the same reason) by
    ``surveys.queries.counts.combination_counts``. Stored once per survey and ordered list of
    questions (``questions``: their ids joined by "-", the outcome first); the questions of an
    opened survey are never deleted, and their reports' shapes are frozen."""

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="+")
    questions = models.CharField(max_length=100)
    counts = models.JSONField()
    through = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "questions"], name="combination_tally_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"Counts of the combinations of questions {self.questions}'s reports"


class Invitation(models.Model):
    """A single-use link. Records only that it was used: never when, nor which submission."""

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="invitations")
    token = models.CharField(max_length=32, unique=True, default=new_public_id, editable=False)
    used = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"Invitation {'(used)' if self.used else '(unused)'}"
