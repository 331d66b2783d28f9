from django.urls import path

from surveys.views import authoring, pages

urlpatterns = [
    path("", pages.home, name="home"),
    path("surveys/", authoring.survey_list, name="survey-list"),
    path("surveys/new/", authoring.survey_create, name="survey-create"),
    path("surveys/<int:pk>/", authoring.survey_detail, name="survey-detail"),
    path("surveys/<int:pk>/edit/", authoring.survey_edit, name="survey-edit"),
    path("surveys/<int:pk>/delete/", authoring.survey_delete, name="survey-delete"),
    path("surveys/<int:pk>/open/", authoring.survey_open, name="survey-open"),
    path("surveys/<int:pk>/close/", authoring.survey_close, name="survey-close"),
    path("surveys/<int:pk>/duplicate/", authoring.survey_duplicate, name="survey-duplicate"),
    path("surveys/<int:pk>/preview/", authoring.survey_preview, name="survey-preview"),
    path("surveys/<int:pk>/questions/new/", authoring.question_create, name="question-create"),
    path("questions/<int:pk>/edit/", authoring.question_edit, name="question-edit"),
    path("questions/<int:pk>/delete/", authoring.question_delete, name="question-delete"),
    path("questions/<int:pk>/move/", authoring.question_move, name="question-move"),
    path("epsilon/explain/", authoring.epsilon_explain, name="epsilon-explain"),
]
