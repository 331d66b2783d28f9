"""Demo accounts and a demo survey with simulated answers, for trying the site locally."""

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from surveys.actions.simulate import (
    DEMO_DRINKING_BINS,
    DEMO_DRINKING_BY_USE,
    DEMO_FREQUENCY_BY_USE,
    DEMO_SUBSTANCES,
    DEMO_SUBSTANCES_BY_USE,
    DEMO_TITLE,
    DEMO_TRUTH,
    DEMO_USE_BY_YEAR,
    load_demo_responses,
)
from surveys.actions.surveys import open_survey
from surveys.kinds import CATEGORICAL, CHECK_ALL, NUMBER, RATING, YES_NO
from surveys.models import Choice, Question, Survey

ACCOUNTS = {
    # username: (password, is_staff)
    "admin": ("demo-admin", True),
    "researcher": ("demo-researcher", False),
}
DEMO_YEARS = ["First year", "Second year", "Third year or later"]
DEMO_FREQUENCY = RATING.scale_labels(5, "Never", "Daily")
EPSILONS = (0.6, 0.5, 0.4, 0.5, 0.6, 0.4)
"""The questions' epsilons: 3 in all, the site's default limit per survey. The year and the
check-all question get the most: every group's figures rest on the first, and each option of
the second is asked of a fifth of the respondents."""


class Command(BaseCommand):
    help = "Create demo accounts and a demo survey with simulated randomized answers."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--force", action="store_true", help="Run even when DEBUG is off.")

    def handle(self, *args, force: bool = False, **options) -> None:
        if not settings.DEBUG and not force:
            raise CommandError("The demo creates accounts with known passwords: use it locally.")
        with transaction.atomic():
            researcher = self._accounts()
            created = self._survey(researcher)
        self.stdout.write(
            self.style.SUCCESS("Demo ready. Sign in at http://127.0.0.1:8000/accounts/login/")
        )
        for username, (password, is_staff) in ACCOUNTS.items():
            role = "administrator (also /admin/)" if is_staff else "researcher"
            self.stdout.write(f"  {role:30} username: {username:12} password: {password}")
        if created:
            self.stdout.write(f"  Demo survey “{DEMO_TITLE}” created with simulated responses.")

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

    def _survey(self, owner: User) -> bool:
        """Create the demo survey, unless the owner has one (a survey with simulated truth)."""
        if Survey.objects.filter(owner=owner, questions__simulated_truth__isnull=False).exists():
            return False
        survey = Survey.objects.create(
            owner=owner,
            title=DEMO_TITLE,
            introduction="A short demonstration survey about cannabis use among students. "
            "Your answers are randomized on your device before they are sent.",
            study_by="Student Health Research Group, University of Exampleton (a demo)",
            study_contact="health-survey@example.org",
            ethics_reference="HREC 2026/117 (demo)",
            consent_required=True,
        )
        year = Question.objects.create(
            survey=survey,
            order=1,
            kind=CATEGORICAL.value,
            epsilon=EPSILONS[0],
            text="Which year of your studies are you in?",
            used_for_breakdowns=True,
            simulated_truth=list(DEMO_TRUTH[0]),
        )
        use = Question.objects.create(
            survey=survey,
            order=2,
            kind=YES_NO.value,
            epsilon=EPSILONS[1],
            text="Have you used cannabis in the past 12 months?",
            used_for_breakdowns=True,
            offers_refusal=True,
            simulated_truth=list(DEMO_TRUTH[1]),
            simulated_given={"question": year.pk, "shares": [list(s) for s in DEMO_USE_BY_YEAR]},
        )
        frequency = Question.objects.create(
            survey=survey,
            order=3,
            kind=RATING.value,
            epsilon=EPSILONS[2],
            text="How often do you use cannabis?",
            help_text="Think of a typical month this year.",
            asked_if=use,
            asked_if_answer=1,  # "Yes"
            simulated_truth=list(DEMO_TRUTH[2]),
            simulated_given={
                "question": use.pk, "shares": [list(s) for s in DEMO_FREQUENCY_BY_USE]
            },
        )
        Question.objects.create(
            survey=survey,
            order=4,
            kind=NUMBER.value,
            epsilon=EPSILONS[3],
            text="On how many of the past 30 days did you drink alcohol?",
            number_min=0,
            number_max=30,
            number_decimals=0,
            number_bins=DEMO_DRINKING_BINS,
            simulated_truth=list(DEMO_TRUTH[3]),
            simulated_given={
                "question": use.pk, "shares": [list(s) for s in DEMO_DRINKING_BY_USE]
            },
        )
        substances = Question.objects.create(
            survey=survey,
            order=5,
            kind=CHECK_ALL.value,
            epsilon=EPSILONS[4],
            text="Which of these have you used in the past 12 months?",
            help_text="Tick all that apply, or none.",
            simulated_truth=list(DEMO_TRUTH[4]),
            simulated_given={
                "question": use.pk, "shares": [list(s) for s in DEMO_SUBSTANCES_BY_USE]
            },
        )
        Question.objects.create(
            survey=survey,
            order=6,
            kind=YES_NO.value,
            epsilon=EPSILONS[5],
            text="Have you ever used Relevin?",
            help_text="Relevin does not exist: this question checks that the randomization "
            "was understood (a validation anchor).",
            known_share=0.0,
            simulated_truth=list(DEMO_TRUTH[5]),
        )
        for question, labels in (
            (year, DEMO_YEARS), (frequency, DEMO_FREQUENCY), (substances, DEMO_SUBSTANCES)
        ):
            Choice.objects.bulk_create(
                [Choice(question=question, order=i, label=label) for i, label in enumerate(labels)]
            )
        open_survey(survey)
        load_demo_responses(survey)
        return True
