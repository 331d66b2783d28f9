"""The Django admin: surveys with their questions and translations, and the site's privacy
policy."""

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db import models
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html_join

from surveys.actions.surveys import close_survey, open_survey
from surveys.actions.wording import baseline, record
from surveys.helpers.numbers import epsilon as epsilon_text
from surveys.helpers.privacy_words import limit_meaning
from surveys.models import (
    TOTAL_EPSILON,
    Choice,
    PrivacyPolicy,
    Question,
    Survey,
    SurveyShare,
    SurveyTranslation,
)
from surveys.queries.access import is_researcher

FROZEN_QUESTION_FIELDS = [
    "order", "text", "help_text", "kind", "used_for_breakdowns", "epsilon", "mechanism_override",
    "offers_refusal", "optional",
]


class FrozenAwareInline(admin.TabularInline):
    """Read-only once the survey it belongs to has been opened."""

    extra = 0

    def _frozen(self, obj) -> bool:
        raise NotImplementedError

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return not (obj and self._frozen(obj)) and super().has_add_permission(request, obj)

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return not (obj and self._frozen(obj)) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return not (obj and self._frozen(obj)) and super().has_delete_permission(request, obj)


class QuestionInline(FrozenAwareInline):
    model = Question
    fields = [*FROZEN_QUESTION_FIELDS, "choice_labels"]
    readonly_fields = ["choice_labels"]
    show_change_link = True

    def _frozen(self, survey: Survey) -> bool:
        return survey.is_frozen

    @admin.display(description="Choices")
    def choice_labels(self, question: Question) -> str:
        return ", ".join(question.labels()) if question.pk else ""


class ChoiceInline(FrozenAwareInline):
    model = Choice
    fields = ["order", "label"]

    def _frozen(self, question: Question) -> bool:
        return question.survey.is_frozen


class TranslationInline(admin.StackedInline):
    """A survey's translations: wording, not mechanism, so editable even once it is open."""

    model = SurveyTranslation
    fields = ["language", "texts"]
    extra = 0


class ShareForm(forms.ModelForm):
    """A share as the sharing page allows it: with a researcher other than the owner."""

    def clean_user(self):
        user = self.cleaned_data["user"]
        if user.pk == self.instance.survey.owner_id:
            raise ValidationError("The owner has full access already: share with someone else.")
        if not is_researcher(user):
            raise ValidationError(
                f"{user} is not a researcher: only researchers can be given access to a survey."
            )
        return user


class ShareInline(admin.TabularInline):
    """The researchers the owner shared the survey with, and their role (a share counts only
    while its user is a researcher)."""

    model = SurveyShare
    form = ShareForm
    fields = ["user", "role"]
    raw_id_fields = ["user"]
    extra = 0
    verbose_name = "co-researcher"
    verbose_name_plural = "Shared with (co-researchers)"


@admin.register(Survey)
class SurveyAdmin(admin.ModelAdmin):
    list_display = [
        "title", "owner", "status", "language", "response_count", "epsilon_total", "opened_at",
    ]
    list_filter = ["status", "language", "invitation_only", "opened_at"]
    search_fields = ["title", "owner__username", "public_id"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    # The status changes only through open/close (pages or the actions below), which also
    # freeze the mechanisms; a bare status edit would skip that.
    readonly_fields = [
        "status",
        "public_id",
        "response_count",
        "opened_at",
        "closed_at",
        "created_at",
    ]
    raw_id_fields = ["owner"]
    inlines = [QuestionInline, TranslationInline, ShareInline]

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).annotate(epsilon_sum=TOTAL_EPSILON)

    @admin.display(description="Total epsilon", ordering="epsilon_sum")
    def epsilon_total(self, survey: Survey) -> str:
        return epsilon_text(survey.epsilon_sum)

    def save_model(self, request: HttpRequest, survey: Survey, form, change: bool) -> None:
        if change and not survey.is_draft:  # the wording before this change, if none is kept
            baseline(Survey.objects.get(pk=survey.pk))
        super().save_model(request, survey, form, change)

    def save_related(self, request: HttpRequest, form, formsets, change: bool) -> None:
        """An opened survey's texts and translations edited here are kept as a revision, as
        on its pages; results cached with the old texts are not shown again."""
        super().save_related(request, form, formsets, change)
        if change:
            record(form.instance, request.user)

    actions = ["open_surveys", "close_surveys"]

    @admin.action(description="Open the selected surveys (freezes their questions)")
    def open_surveys(self, request: HttpRequest, queryset) -> None:
        for survey in queryset.exclude(status=Survey.Status.OPEN):
            try:
                open_survey(survey)
            except ValidationError as error:
                self.message_user(request, f"{survey}: {' '.join(error.messages)}", "error")

    @admin.action(description="Close the selected surveys")
    def close_surveys(self, request: HttpRequest, queryset) -> None:
        for survey in queryset.filter(status=Survey.Status.OPEN):
            close_survey(survey)


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ["text", "survey", "kind", "epsilon", "mechanism_name"]
    list_filter = ["kind", "survey__status"]
    search_fields = ["text", "survey__title"]
    readonly_fields = ["frozen_spec"]
    raw_id_fields = ["asked_if"]  # a question of the same survey (Question.clean checks)
    inlines = [ChoiceInline]

    @admin.display(description="Mechanism")
    def mechanism_name(self, question: Question) -> str:
        return question.mechanism().label

    @admin.display(description="Frozen parameters")
    def frozen_spec(self, question: Question):
        if not question.spec:
            return "Chosen when the survey opens."
        return format_html_join(", ", "{}={}", sorted(question.spec.items()))

    def has_change_permission(self, request: HttpRequest, obj: Question | None = None) -> bool:
        return not (obj and obj.survey.is_frozen) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Question | None = None) -> bool:
        return not (obj and obj.survey.is_frozen) and super().has_delete_permission(request, obj)


@admin.register(PrivacyPolicy)
class PrivacyPolicyAdmin(admin.ModelAdmin):
    list_display = ["__str__", "default_epsilon", "max_question_epsilon", "max_survey_epsilon"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def get_form(self, request: HttpRequest, obj=None, change=False, **kwargs):
        """The epsilons' help texts end with what their saved values mean for the people
        answering."""
        form = super().get_form(request, obj, change, **kwargs)
        if obj is not None:
            meanings = {
                "default_epsilon": limit_meaning(obj.default_epsilon),
                "max_question_epsilon": limit_meaning(obj.max_question_epsilon),
                "max_survey_epsilon": limit_meaning(obj.max_survey_epsilon, whole_survey=True),
            }
            for name, meaning in meanings.items():
                field = form.base_fields[name]
                field.help_text = f"{field.help_text} {meaning}"
        return form

    def changelist_view(self, request: HttpRequest, extra_context=None):
        policy = PrivacyPolicy.current()
        return HttpResponseRedirect(reverse("admin:surveys_privacypolicy_change", args=[policy.pk]))


