"""The Django admin's view of API tokens: who has which, until when, and whether revoked.
Read-only (tokens are made on their owner's page, which alone ever shows a secret; only its
hash is stored), with an action to revoke."""

from django.contrib import admin
from django.http import HttpRequest

from surveys.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["owner", "name", "prefix", "created", "expires", "last_used", "revoked"]
    list_filter = ["revoked", "expires"]
    search_fields = ["owner__username", "name", "prefix"]
    fields = ["owner", "name", "prefix", "created", "expires", "last_used", "revoked"]
    readonly_fields = fields
    actions = ["revoke"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    @admin.action(description="Revoke the selected tokens", permissions=["delete"])
    def revoke(self, request: HttpRequest, queryset) -> None:
        for token in queryset:
            token.revoke()
