"""The form of a researcher's settings page."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from surveys.models import Account, time_zones


class AccountForm(forms.ModelForm):
    """The time zone a researcher's pages show and take times in: every IANA zone, as a
    list (typing its first letters finds one, as in any native list)."""

    class Meta:
        model = Account
        fields = ["time_zone"]
        labels = {"time_zone": _("Time zone")}
        help_texts = {"time_zone": _(
            "Opening and closing times, wording corrections and every other time on your pages "
            "are shown, and typed, in this time zone. Respondents' pages are not affected."
        )}
        widgets = {"time_zone": forms.Select(choices=[(name, name) for name in time_zones()])}
