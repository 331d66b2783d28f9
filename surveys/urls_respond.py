from django.urls import path, register_converter

from surveys.views import respond


class PublicIdConverter:
    """The alphabet of secrets.token_urlsafe: anything else cannot name a survey or an
    invitation, and is refused before it reaches the database."""

    regex = "[A-Za-z0-9_-]{1,64}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(PublicIdConverter, "public")

urlpatterns = [
    path("s/<public:public_id>/", respond.respond, name="respond"),
    path("s/<public:public_id>/submit/", respond.respond_submit, name="respond-submit"),
    path("s/<public:public_id>/thanks/", respond.respond_thanks, name="respond-thanks"),
    path("i/<public:token>/", respond.respond_invitation, name="respond-invitation"),
    path("surveys/<int:pk>/invitations/", respond.invitation_list, name="invitation-list"),
    path("surveys/<int:pk>/invitations.csv", respond.invitation_csv, name="invitation-csv"),
]
