"""``manage.py respondent_messages``: update the translation catalogues under locale/ from the
files of respondents' pages (``RESPONDENT_FILES``), in every language of settings.LANGUAGES.

Django's ``makemessages`` with the choice of files narrowed: researchers' pages mark their
strings for translation too, but are English for now, so their strings stay out of the
catalogues, which are kept complete (no empty or fuzzy entry; tests/views/test_languages.py).
Run it after changing a respondent-facing string, then translate what it added.
"""

from pathlib import Path

from django.conf import settings
from django.core.management.commands import makemessages

RESPONDENT_FILES = [
    "templates/base.html",
    "templates/404.html",
    "templates/500.html",
    "templates/surveys/_languages.html",
    "templates/surveys/_respondent_footer.html",
    "templates/surveys/respond.html",
    "templates/surveys/respond_thanks.html",
    "templates/surveys/respond_unavailable.html",
    "templates/surveys/respond/controls/check_all.html",
    "templates/surveys/respond/controls/number.html",
    "surveys/views/respond.py",
    "surveys/actions/submissions.py",
    "surveys/kinds/answers.py",
    "surveys/helpers/privacy_words.py",
    "surveysite/middleware.py",
    "static/surveys/i18n.js",
    "static/surveys/respond.js",
    "static/surveys/respond_core.js",
]
"""Every file with strings a respondent can see, relative to the project folder."""


class Command(makemessages.Command):
    help = "Update locale/ from the respondents' pages, in every language of the site."

    def handle(self, *args, **options):
        options["locale"] = [code for code, _ in settings.LANGUAGES if code != "en"]
        options["no_obsolete"] = True
        options["no_location"] = True
        options["add_location"] = None
        for domain in ("django", "djangojs"):
            super().handle(*args, **options | {"domain": domain})

    def find_files(self, root):
        wanted = {(Path(settings.BASE_DIR) / name).resolve() for name in RESPONDENT_FILES}
        return [
            found
            for found in super().find_files(root)
            if Path(found.dirpath, found.file).resolve() in wanted
        ]
