"""The admin's "Add user" page makes a researcher in one step: its "Researcher" box, ticked by
default, puts the new account in the Researchers group (``surveys.queries.access``), which lets
it author surveys. Replaces Django's own User admin; loaded by ``surveys.admin``."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm
from django.contrib.auth.models import Group, User
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from surveys.queries.access import RESEARCHERS_GROUP


class ResearcherCreationForm(AdminUserCreationForm):
    researcher = forms.BooleanField(
        label=_("Researcher"),
        required=False,
        initial=True,
        help_text=_("May create surveys and see their results (the Researchers group)."),
    )


class ResearcherUserAdmin(UserAdmin):
    add_form = ResearcherCreationForm
    add_fieldsets = (
        (
            None,
            {
                "classes": ("wide",),
                "fields": ("username", "usable_password", "password1", "password2", "researcher"),
            },
        ),
    )

    def save_related(self, request: HttpRequest, form, formsets, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        if not change and form.cleaned_data.get("researcher"):
            group, _created = Group.objects.get_or_create(name=RESEARCHERS_GROUP)
            form.instance.groups.add(group)


admin.site.unregister(User)
admin.site.register(User, ResearcherUserAdmin)
