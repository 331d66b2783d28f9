"""The form of a researcher's settings page."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from surveys.models import Account, time_zones


def time_zone_choices() -> list:
    """Every IANA time zone, grouped by its region ("Europe": "Paris", "America":
    "Argentina/Buenos Aires"), so that no option is too wide for a phone; zones without a
    region ("UTC") first, on their own."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for name in time_zones():
        region, _slash, place = name.partition("/")
        groups.setdefault(region if place else "", []).append(
            (name, (place or name).replace("_", " "))
        )
    return [*groups.pop("", []), *groups.items()]


class LanguageSelect(forms.Select):
    """Each language named in itself, marked as such for screen readers (``lang``)."""

    def create_option(self, name, value, *args, **kwargs):
        option = super().create_option(name, value, *args, **kwargs)
        if value:
            option["attrs"]["lang"] = value
        return option


class AccountForm(forms.ModelForm):
    """The language of a researcher's pages (each named in itself, or the browser's), and the
    time zone they show and take times in: every IANA zone, as a native list (typing a city's
    first letters finds it)."""

    class Meta:
        model = Account
        fields = ["language", "time_zone"]
        labels = {"language": _("Language of your pages"), "time_zone": _("Time zone")}
        help_texts = {"language": _(
            "Your browser's language is used unless you choose one. Respondents always get "
            "their own."
        ), "time_zone": _(
            "Opening and closing times, wording corrections and every other time on your pages "
            "are shown, and typed, in this time zone. Respondents' pages are not affected."
        )}
        widgets = {
            "language": LanguageSelect,
            "time_zone": forms.Select(choices=time_zone_choices()),
        }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["language"].choices = [("", _("Your browser's language")), *settings.LANGUAGES]
