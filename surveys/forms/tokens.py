"""The form of the API tokens page: name a new token, choose how long it lasts and whether it
may write."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from surveys.models import ApiToken
from surveys.queries.tokens import MAX_ACTIVE_TOKENS, active_tokens


class ApiTokenForm(forms.Form):
    """A new token for ``owner``: refused once they have ``MAX_ACTIVE_TOKENS`` active ones."""

    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=100,
        help_text=gettext_lazy("What the token is for, to recognise it later: “R analysis”."),
        error_messages={"required": gettext_lazy("Give the token a name.")},
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    days = forms.TypedChoiceField(
        label=gettext_lazy("Expires after"),
        choices=ApiToken.Lifetime.choices,
        coerce=int,
        initial=ApiToken.Lifetime.QUARTER,
        error_messages={"invalid_choice": gettext_lazy("Choose 30 days, 90 days or 1 year.")},
    )
    scope = forms.TypedChoiceField(
        label=gettext_lazy("What it may do"),
        choices=ApiToken.Scope.choices,
        initial=ApiToken.Scope.READ,
        required=False,
        empty_value=ApiToken.Scope.READ,  # a form that leaves it out asks for a reader
        widget=forms.RadioSelect,
        help_text=gettext_lazy(
            "Read: results, breakdowns and exports. Read and write: also make drafts from "
            "survey files, and open and close surveys (those you may edit)."
        ),
        error_messages={"invalid_choice": gettext_lazy("Choose read, or read and write.")},
    )

    def __init__(self, *args, owner, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.owner = owner

    def clean(self):
        if active_tokens(self.owner).count() >= MAX_ACTIVE_TOKENS:
            raise forms.ValidationError(
                _("You already have %(count)d active tokens: revoke one you no longer use first.")
                % {"count": MAX_ACTIVE_TOKENS}
            )
        return super().clean()
