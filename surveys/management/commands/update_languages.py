"""``manage.py update_languages``: update the translation catalogues under locale/ from every
file of the site (``TRANSLATED_FOLDERS``: researchers' and respondents' pages, their scripts,
the admin), in every language of settings.LANGUAGES.

Django's ``makemessages`` with the choice of folders narrowed (not the tests, benchmarks or
installed packages), and with no obsolete entry and no line numbers kept, so that the
catalogues stay complete (no empty or fuzzy entry; tests/views/test_languages.py) and a
change elsewhere in a file does not touch them. Run it after changing a string anyone can
see, then translate what it added.
"""

from pathlib import Path

from django.conf import settings
from django.core.management.commands import makemessages

TRANSLATED_FOLDERS = ["templates", "surveys", "surveysite", "static/surveys"]
"""Every folder with strings someone can see, relative to the project folder."""


class Command(makemessages.Command):
    help = "Update locale/ from the site's files, in every language of the site."

    def handle(self, *args, **options):
        options["locale"] = [code for code, _ in settings.LANGUAGES if code != "en"]
        options["no_obsolete"] = True
        options["no_location"] = True
        options["add_location"] = None
        for domain in ("django", "djangojs"):
            super().handle(*args, **options | {"domain": domain})

    def find_files(self, root):
        folders = [(Path(settings.BASE_DIR) / name).resolve() for name in TRANSLATED_FOLDERS]
        return [
            found
            for found in super().find_files(root)
            if any(Path(found.dirpath).resolve().is_relative_to(f) for f in folders)
        ]
