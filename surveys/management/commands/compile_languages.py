"""``manage.py compile_languages``: compile the translation catalogues under locale/ (.po,
committed) into the .mo files Django reads (not committed). The setup runs it.

With polib, in Python, so that the setup needs no system package; Django's own
``compilemessages`` would need GNU gettext's msgfmt.
"""

from pathlib import Path

import polib
from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Compile locale/*/LC_MESSAGES/*.po into the .mo files Django reads."

    def handle(self, *args, **options):
        for locale_path in settings.LOCALE_PATHS:
            for po_path in sorted(Path(locale_path).glob("*/LC_MESSAGES/*.po")):
                polib.pofile(str(po_path)).save_as_mofile(str(po_path.with_suffix(".mo")))
                if options["verbosity"] > 1:
                    self.stdout.write(f"Compiled {po_path}")
