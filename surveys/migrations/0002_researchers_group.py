"""The "Researchers" group, whose members may author surveys, and the privacy policy record."""

from django.db import migrations


def create_group(apps, schema_editor) -> None:
    apps.get_model("auth", "Group").objects.get_or_create(name="Researchers")
    apps.get_model("surveys", "PrivacyPolicy").objects.get_or_create(pk=1)


def remove_group(apps, schema_editor) -> None:
    apps.get_model("auth", "Group").objects.filter(name="Researchers").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("surveys", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(create_group, remove_group)]
