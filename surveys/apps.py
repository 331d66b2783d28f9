from django.apps import AppConfig
from django.core.management import call_command
from django.db.models.signals import post_migrate


def create_cache_table(using: str, **kwargs) -> None:
    """After every ``migrate``, create the database cache's table if it is missing (the
    command skips tables that exist), so no deployment needs a separate setup step. The
    settings configure that cache ("database") whether REDIS_URL is set or not, so the table
    exists either way, and setting or unsetting REDIS_URL later breaks nothing."""
    call_command("createcachetable", database=using, verbosity=0)


class SurveysConfig(AppConfig):
    name = "surveys"
    verbose_name = "Surveys"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        post_migrate.connect(create_cache_table, sender=self)
