"""A survey's own settings: title, language, schedule and distribution; deleting it."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from crispy_forms.layout import HTML, Fieldset, Layout
from django import forms
from django.core.validators import URLValidator
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from surveys.helpers.numbers import thousands
from surveys.helpers.times import researcher_time
from surveys.models import STUDY_TEXTS, Survey

WEB_LINK_ONLY = _(
    "Enter a full web link starting with https:// (or http://), for example "
    "https://app.prolific.com/submissions/complete?cc=C1234ABC."
)

SCHEDULE_FIELDS = ["opens_at", "closes_at", "response_target", "completion_url",
                   "thank_you_message"]
"""The survey's schedule and distribution: not mechanism settings, so editable while it is
open (``surveys.queries.schedule``)."""

ABOUT_FIELDS = [*STUDY_TEXTS, "consent_required"]
"""What respondents read about the study before the questions, and whether they must agree
to take part first."""

MINUTES = "%Y-%m-%dT%H:%M"  # what the browser's datetime-local input sends and shows


class WebLinkField(forms.URLField):
    """A URL field that takes only http(s) links (no javascript:, data: or ftp:)."""

    default_validators = [URLValidator(schemes=["http", "https"])]
    default_error_messages = {"invalid": WEB_LINK_ONLY}


class SurveyForm(forms.ModelForm):
    completion_url = WebLinkField(
        label=_("Completion link"),
        required=False,
        max_length=Survey._meta.get_field("completion_url").max_length,
        assume_scheme="https",
        help_text=_(
            "Optional. Where respondents are sent once their answers are stored, for "
            "example a recruitment panel's completion link: paste the panel's whole link, with "
            "its completion code (https://app.prolific.com/submissions/complete?cc=C1234ABC). "
            "Respondents are told before sending that they will be taken there; nothing of "
            "their answers is added to it."
        ),
    )

    class Meta:
        model = Survey
        fields = ["title", "language", "introduction", *ABOUT_FIELDS, "invitation_only",
                  *SCHEDULE_FIELDS]
        widgets = {
            "introduction": forms.Textarea(attrs={"rows": 4}),
            "opens_at": forms.DateTimeInput(attrs={"type": "datetime-local"}, format=MINUTES),
            "closes_at": forms.DateTimeInput(attrs={"type": "datetime-local"}, format=MINUTES),
            "response_target": forms.NumberInput(attrs={"min": 1, "step": 1}),
            "thank_you_message": forms.Textarea(attrs={"rows": 3}),
        }
        labels = {
            "title": _("Title"),
            "language": _("Language"),
            "introduction": _("Introduction"),
            "invitation_only": _("Invitation only"),
            "response_target": _("Response target"),
            "thank_you_message": _("Thank-you message"),
        }
        error_messages = {
            "response_target": {"min_value": _("A response target must be at least 1.")},
        }
        help_texts = {
            "title": _("Respondents see this title."),
            "invitation_only": _(
                "Only people with a single-use invitation link can answer. "
                "You can create the links once the survey exists."
            ),
            "response_target": _(
                "Optional. The survey closes itself once it has this many responses."
            ),
            "thank_you_message": _(
                "Optional. Shown to respondents after they answer, above the "
                "explanations (in the survey's language)."
            ),
        }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["language"].required = False
        self.fields["response_target"].widget.attrs["min"] = 1
        # Times are typed and shown in the researcher's time zone (their settings), stored in
        # UTC; each box says which zone, and under it the time typed is written out in words
        # (static/surveys/schedule.js), whatever format the browser's picker uses.
        zone = timezone.get_current_timezone_name()
        for name, label, help_text in (
            ("opens_at", gettext("Opens at (%(zone)s time)"), gettext(
                "Optional. Once the survey is open, respondents are told it opens at this "
                "time, and can answer from then on.")),
            ("closes_at", gettext("Closes at (%(zone)s time)"), gettext(
                "Optional. The survey closes itself at this time.")),
        ):
            field = self.fields[name]
            field.label = label % {"zone": zone}
            field.help_text = format_html(
                '{} <span class="d-block fw-semibold" id="{}-words" aria-live="polite"></span>',
                help_text, name,
            )
            field.widget.attrs["data-zone"] = zone
        self.helper = FormHelper()
        self.helper.form_tag = False
        self.helper.layout = Layout(
            *[name for name in self.fields if name not in SCHEDULE_FIELDS + ABOUT_FIELDS],
            Fieldset(gettext("About the study"), *ABOUT_FIELDS, css_id="about-the-study"),
            Fieldset(
                gettext("Schedule and distribution"),
                HTML(
                    format_html(
                        '<p class="form-text mt-0">{}</p>',
                        gettext(
                            "Times are in your time zone, %(zone)s (change it in your "
                            "settings). All of these can be changed at any time, also while "
                            "the survey is open."
                        ) % {"zone": zone},
                    )
                ),
                *SCHEDULE_FIELDS,
                css_id="schedule-and-distribution",
            ),
        )

    def clean(self) -> dict:
        """A closing time after the opening time and not already past (for an open survey,
        or when it is being set), and a response target above the responses received."""
        cleaned = super().clean()
        survey, now = self.instance, timezone.now()
        opens, closes = cleaned.get("opens_at"), cleaned.get("closes_at")
        if opens and closes and closes <= opens:
            self.add_error("closes_at", gettext("The closing time must be after the opening time."))
        elif closes and closes <= now and (survey.is_open or "closes_at" in self.changed_data):
            self.add_error(
                "closes_at",
                gettext(
                    "This time has passed (it is now %(now)s): choose a later closing time, or "
                    "leave it empty."
                ) % {"now": researcher_time(now)},
            )
        target, count = cleaned.get("response_target"), survey.response_count
        # Equal to the count, an open survey would close at once; a closed one may keep it.
        too_low = target is not None and (target < count or (target == count and survey.is_open))
        if count and too_low and target >= 1:  # below 1: the model's own message
            self.add_error(
                "response_target",
                gettext(
                    "This survey already has %(count)s responses: choose a target above that "
                    "(or close the survey)."
                ) % {"count": thousands(count)},
            )
        return cleaned

    def clean_language(self) -> str:
        """Left out of the data, the survey keeps its language."""
        return self.cleaned_data["language"] or self.instance.language


class ConfirmDeleteForm(forms.Form):
    confirm = forms.BooleanField(
        required=True,
        label=_("I understand that all responses to this survey will be deleted for good."),
    )
