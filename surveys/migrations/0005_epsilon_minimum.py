"""Epsilon must be at least 0.01 (``ldp.MIN_EPSILON``) in the database too: in the questions'
and the privacy policy's check constraints.

Until now any epsilon above 0 was accepted, so stored rows may lie below the minimum:

- A draft question below it is raised to the minimum. Nothing has been collected with it, the
  mechanisms now refuse it (the draft could not be opened), and 0.01 is the nearest epsilon
  they accept; the survey's checks before opening still apply to the new value.
- A privacy policy epsilon below it is raised to the minimum: such a policy allows no
  question at all, and the minimum is the nearest policy that allows one.
- A question of an opened (or closed) survey below it stops the migration, naming the
  surveys. Its reports were randomized with that epsilon: storing another would misstate the
  protection respondents had, and this version cannot analyse them (it refuses such
  mechanisms). Export those surveys' reports and metadata with the previous version, delete
  the surveys, and migrate again.

Reversing keeps the raised values (the originals are not recorded) and restores the old
constraints, which they satisfy.
"""

from django.db import migrations, models
from django.db.models import Value
from django.db.models.functions import Greatest

MIN_EPSILON = 0.01
"""``ldp.MIN_EPSILON`` when this migration was written; migrations keep the values of their time."""

POLICY_EPSILONS = ("default_epsilon", "max_question_epsilon", "max_survey_epsilon")


def raise_to_minimum(apps, schema_editor) -> None:
    Question = apps.get_model("surveys", "Question")
    PrivacyPolicy = apps.get_model("surveys", "PrivacyPolicy")
    below = Question.objects.filter(epsilon__lt=MIN_EPSILON)
    frozen = (
        below.exclude(survey__status="draft")
        .order_by("survey_id")
        .values_list("survey_id", "survey__title")
        .distinct()
    )
    if frozen:
        named = "; ".join(f"survey {pk} ({title!r})" for pk, title in frozen)
        raise RuntimeError(
            f"Opened surveys have questions with epsilon below {MIN_EPSILON}, which this version "
            f"cannot analyse: {named}. Export their reports and metadata with the previous "
            "version, delete these surveys, then migrate again."
        )
    below.update(epsilon=MIN_EPSILON)  # drafts only, by now
    # One statement, so that no intermediate row breaks "default <= per-question maximum".
    PrivacyPolicy.objects.update(
        **{field: Greatest(field, Value(MIN_EPSILON)) for field in POLICY_EPSILONS}
    )


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0004_question_simulated_truth"),
    ]

    operations = [
        migrations.RunPython(raise_to_minimum, migrations.RunPython.noop),
        migrations.RemoveConstraint(
            model_name="privacypolicy",
            name="privacy_policy_epsilons_valid",
        ),
        migrations.RemoveConstraint(
            model_name="question",
            name="question_epsilon_positive_finite",
        ),
        migrations.AddConstraint(
            model_name="privacypolicy",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("default_epsilon__gte", MIN_EPSILON),
                    ("max_question_epsilon__gte", MIN_EPSILON),
                    ("max_survey_epsilon__gte", MIN_EPSILON),
                    ("max_question_epsilon__lte", 20.0),
                    ("default_epsilon__lte", models.F("max_question_epsilon")),
                ),
                name="privacy_policy_epsilons_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="question",
            constraint=models.CheckConstraint(
                condition=models.Q(("epsilon__gte", MIN_EPSILON), ("epsilon__lte", 20.0)),
                name="question_epsilon_in_range",
            ),
        ),
    ]
