"""The forms of a survey's sharing page: give a researcher access, change a role, remove
access. Each validates everything, so bad input changes nothing."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from surveys.models import Survey, SurveyShare
from surveys.queries.access import is_researcher

ROLE_ERRORS = {
    "required": gettext_lazy("Choose a role: viewer or editor."),
    "invalid_choice": gettext_lazy("Choose a role: viewer or editor."),
}


def role_field(label: str) -> forms.ChoiceField:
    return forms.ChoiceField(
        label=label,
        choices=SurveyShare.Role.choices,
        initial=SurveyShare.Role.VIEWER,
        error_messages=ROLE_ERRORS,
        widget=forms.Select(attrs={"class": "form-select"}),
    )


class ShareForm(forms.Form):
    """Give a researcher, found by username or email, access to ``survey`` with a role. The
    researcher found is ``cleaned_data["user"]``."""

    who = forms.CharField(
        label=gettext_lazy("Username or email"),
        max_length=254,
        error_messages={"required": gettext_lazy("Enter a researcher's username or email.")},
        widget=forms.TextInput(
            attrs={"class": "form-control", "autocomplete": "off", "spellcheck": "false"}
        ),
    )
    role = role_field(gettext_lazy("Role"))

    def __init__(self, *args, survey: Survey, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.survey = survey

    def full_clean(self) -> None:
        """Also marks the fields in error, and ties each to its message, for the page."""
        super().full_clean()
        for name in self.errors:
            if name in self.fields:
                attrs = self.fields[name].widget.attrs
                attrs["class"] = f"{attrs.get('class', '')} is-invalid".strip()
                attrs["aria-describedby"] = f"{self[name].auto_id}_error"

    def clean_who(self):
        who = self.cleaned_data["who"].strip()
        users = get_user_model().objects.filter(is_active=True)
        user = users.filter(username=who).first()
        if user is None and "@" in who:
            found = list(users.filter(email__iexact=who)[:2])
            if len(found) > 1:
                raise forms.ValidationError(
                    _("Several accounts use this email: enter the researcher's username instead.")
                )
            user = found[0] if found else None
        if user is None:
            raise forms.ValidationError(
                _("No account has the username or email “%(who)s”.") % {"who": who}
            )
        if user.pk == self.survey.owner_id:
            raise forms.ValidationError(_("You own this survey: you already have full access."))
        if not is_researcher(user):
            raise forms.ValidationError(
                _("%(name)s is not a researcher: only researchers can be given access to a survey.")
                % {"name": user.get_username()}
            )
        self.cleaned_data["user"] = user
        return who


class ShareChangeForm(forms.Form):
    """Change the role of one of ``survey``'s shares, or (``remove``) only name the share."""

    share = forms.ModelChoiceField(
        queryset=SurveyShare.objects.none(),
        widget=forms.HiddenInput,
        error_messages={
            "required": gettext_lazy("This researcher no longer has access to the survey."),
            "invalid_choice": gettext_lazy("This researcher no longer has access to the survey."),
        },
    )
    role = role_field(gettext_lazy("Role"))

    def __init__(self, *args, survey: Survey, remove: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["share"].queryset = survey.shares.select_related("user")
        if remove:
            del self.fields["role"]
