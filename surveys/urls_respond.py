from django.urls import path

from surveys.views import respond

urlpatterns = [
    path("s/<str:public_id>/", respond.respond, name="respond"),
    path("s/<str:public_id>/submit/", respond.respond_submit, name="respond-submit"),
    path("s/<str:public_id>/thanks/", respond.respond_thanks, name="respond-thanks"),
    path("i/<str:token>/", respond.respond_invitation, name="respond-invitation"),
    path("surveys/<int:pk>/invitations/", respond.invitation_list, name="invitation-list"),
    path("surveys/<int:pk>/invitations.csv", respond.invitation_csv, name="invitation-csv"),
]
