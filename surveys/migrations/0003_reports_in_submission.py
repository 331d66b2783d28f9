"""Each submission keeps its reports in one row (a JSON object: question id -> report) instead
of one Report row per question: a submission is then one row to write, and one to read.

Existing reports move into their submissions, and back again if the migration is reversed.
"""

from itertools import groupby

import django.db.models.deletion
from django.db import migrations, models

from surveys import ldp

BATCH = 2000


def pack_reports(apps, schema_editor) -> None:
    Question = apps.get_model("surveys", "Question")
    Report = apps.get_model("surveys", "Report")
    Submission = apps.get_model("surveys", "Submission")
    unary = {
        pk for pk, spec in Question.objects.exclude(spec=None).values_list("pk", "spec")
        if ldp.from_spec(spec).encoding == "unary"
    }
    rows = (
        Report.objects.order_by("submission_id")
        .values_list("submission_id", "question_id", "value")
        .iterator(chunk_size=BATCH)
    )
    changed = []
    for submission_pk, group in groupby(rows, key=lambda row: row[0]):
        reports = {
            str(question): [int(bit) for bit in value] if question in unary else int(value)
            for _, question, value in group
        }
        changed.append(Submission(pk=submission_pk, reports=reports))
        if len(changed) == BATCH:
            Submission.objects.bulk_update(changed, ["reports"])
            changed = []
    Submission.objects.bulk_update(changed, ["reports"])


def unpack_reports(apps, schema_editor) -> None:
    Report = apps.get_model("surveys", "Report")
    Submission = apps.get_model("surveys", "Submission")
    new = []
    for submission_pk, reports in Submission.objects.values_list("pk", "reports").iterator(
        chunk_size=BATCH
    ):
        for question, report in reports.items():
            value = "".join(map(str, report)) if isinstance(report, list) else str(report)
            new.append(Report(submission_id=submission_pk, question_id=int(question), value=value))
        if len(new) >= BATCH:
            Report.objects.bulk_create(new)
            new = []
    Report.objects.bulk_create(new)


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0002_researchers_group"),
    ]

    operations = [
        # Frees the name "reports" on Submission for the new field.
        migrations.AlterField(
            model_name="report",
            name="submission",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="surveys.submission",
            ),
        ),
        migrations.AddField(
            model_name="submission",
            name="reports",
            field=models.JSONField(
                default=dict,
                editable=False,
                help_text="Question id -> its randomized report, as the browser sent it: 0 or 1 "
                "(yes/no), a category number, or a list of 0s and 1s, one per category.",
            ),
        ),
        migrations.RunPython(pack_reports, unpack_reports),
        migrations.AlterField(
            model_name="submission",
            name="survey",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="submissions",
                to="surveys.survey",
            ),
        ),
        migrations.DeleteModel(name="Report"),
    ]
