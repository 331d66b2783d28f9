"""Questions can keep the true shares their simulated responses are drawn from, so that the
demo survey's results show them as stored data."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0003_reports_in_submission"),
    ]

    operations = [
        migrations.AddField(
            model_name="question",
            name="simulated_truth",
            field=models.JSONField(
                blank=True,
                editable=False,
                help_text="The true share of each answer (k numbers adding up to 1) that "
                "simulated responses are drawn from. Only the demo survey has it; its results "
                "show it beside the estimates.",
                null=True,
            ),
        ),
    ]
