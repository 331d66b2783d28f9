"""Surveys shared with other researchers."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from surveys.models.survey import Survey


class SurveyShare(models.Model):
    """A survey shared by its owner with another researcher: a viewer reads its results and
    exports; an editor also authors it. Only the owner deletes or shares it."""

    class Role(models.TextChoices):
        VIEWER = "viewer", _("Viewer (results and exports)")
        EDITOR = "editor", _("Editor (also authoring)")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="shares")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="survey_shares"
    )
    role = models.CharField(max_length=8, choices=Role.choices, default=Role.VIEWER)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["survey", "user"], name="survey_share_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.survey} shared with {self.user} ({self.get_role_display()})"
