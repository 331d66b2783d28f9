"""Demo accounts and a demo survey with simulated answers, for trying the site locally."""

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from surveys.actions.demo import DEMO_RESPONDENTS, DEMO_TITLE, create_demo_survey
from surveys.models import Survey

ACCOUNTS = {
    # username: (password, is_staff)
    "admin": ("demo-admin", True),
    "researcher": ("demo-researcher", False),
}


class Command(BaseCommand):
    help = "Create demo accounts and a demo survey with simulated randomized answers."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--force", action="store_true", help="Run even when DEBUG is off.")
        parser.add_argument(
            "--respondents", type=int, default=DEMO_RESPONDENTS,
            help=f"Simulated respondents of the demo survey (default {DEMO_RESPONDENTS:,}).",
        )

    def handle(
        self, *args, force: bool = False, respondents: int = DEMO_RESPONDENTS, **options
    ) -> None:
        if not settings.DEBUG and not force:
            raise CommandError("The demo creates accounts with known passwords: use it locally.")
        with transaction.atomic():
            researcher = self._accounts()
            created = self._survey(researcher, respondents)
        self.stdout.write(
            self.style.SUCCESS("Demo ready. Sign in at http://127.0.0.1:8000/accounts/login/")
        )
        for username, (password, is_staff) in ACCOUNTS.items():
            role = "administrator (also /admin/)" if is_staff else "researcher"
            self.stdout.write(f"  {role:30} username: {username:12} password: {password}")
        if created:
            self.stdout.write(f"  Demo survey “{DEMO_TITLE}” created with "
                              f"{respondents:,} simulated respondents.")

    def _accounts(self) -> User:
        researchers = Group.objects.get(name="Researchers")
        for username, (password, is_staff) in ACCOUNTS.items():
            user, created = User.objects.get_or_create(username=username)
            if created:
                user.set_password(password)
                user.is_staff = user.is_superuser = is_staff
                user.save()
            user.groups.add(researchers)
        return User.objects.get(username="researcher")

    def _survey(self, owner: User, respondents: int) -> bool:
        """Create the demo survey, unless the owner has one (a survey with simulated truth)."""
        if Survey.objects.filter(owner=owner, questions__simulated_truth__isnull=False).exists():
            return False
        create_demo_survey(owner, respondents)
        return True
