"""Creating single-use invitation links."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from django import forms
from django.utils.translation import gettext_lazy as _


class InvitationForm(forms.Form):
    count = forms.IntegerField(
        label=_("Number of new links"), min_value=1, max_value=10_000, initial=100
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_tag = False
