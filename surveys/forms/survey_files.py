"""Importing a survey: a survey file (.json) or an XLSForm (.xlsx), read into a survey file's
definition for ``surveys.actions.survey_files.import_survey``."""

from __future__ import annotations

import json
from pathlib import PurePath

from crispy_forms.helper import FormHelper
from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from surveys.forms.xlsform import read_xlsform

MAX_FILE_BYTES = 2 * 1024 * 1024
"""The largest file taken: 2 MB, far more than any survey's definition."""


class SurveyFileForm(forms.Form):
    file = forms.FileField(
        label=_("Survey file"),
        help_text=_(
            "A survey file downloaded from this site (.json), or an XLSForm (.xlsx). At most "
            "2 MB. The survey is imported as a new draft of yours."
        ),
        widget=forms.ClearableFileInput(attrs={"accept": ".json,.xlsx"}),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.definition: object = None
        self.notes: list[str] = []
        self.helper = FormHelper()
        self.helper.form_tag = False

    def clean_file(self):
        """Reads the file into ``definition``, with ``notes`` on what of an XLSForm was not
        read."""
        upload = self.cleaned_data["file"]
        if upload.size > MAX_FILE_BYTES:
            raise ValidationError(
                gettext("This file is larger than 2 MB: no survey is that large.")
            )
        name = PurePath(upload.name)
        if name.suffix.lower() == ".json":
            try:
                self.definition = json.loads(upload.read().decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as error:
                raise ValidationError(
                    gettext("This file is not valid JSON (%(error)s).") % {"error": error}
                ) from None
            except RecursionError:
                raise ValidationError(gettext(
                    "This file nests lists and objects too deeply to be read: a survey file "
                    "never does."
                )) from None
        elif name.suffix.lower() == ".xlsx":
            self.definition, self.notes = read_xlsform(upload, title=name.stem)
        else:
            raise ValidationError(gettext(
                "Choose a survey file (.json) or an XLSForm (.xlsx)."
            ))
        return upload
