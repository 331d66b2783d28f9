"""Every page of the app, in one list: respondents' pages first, then researchers'."""

from django.urls import path, register_converter

from surveys.models import PUBLIC_TOKEN
from surveys.views import (
    accounts,
    api,
    authoring,
    breakdowns,
    by_wording,
    designs,
    distribution,
    invitations,
    pages,
    regression,
    respond,
    results,
    sharing,
    survey_files,
    tokens,
    translations,
    wording,
)


class PublicTokenConverter:
    """Survey ids and invitation tokens: anything outside their alphabet is refused before it
    reaches the database."""

    regex = PUBLIC_TOKEN.pattern

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(PublicTokenConverter, "public")

urlpatterns = [
    # Scripts (docs/results-api.md)
    path("api/v1/", api.urls()),
    api.ANY_OTHER,
    # Respondents
    path("s/<public:public_id>/", respond.respond, name="respond"),
    path("s/<public:public_id>/submit/", respond.respond_submit, name="respond-submit"),
    path("s/<public:public_id>/thanks/", respond.respond_thanks, name="respond-thanks"),
    path("i/<public:token>/", respond.respond_invitation, name="respond-invitation"),
    path("i18n/<str:language>.json", respond.respond_catalog, name="respond-catalog"),
    # Researchers: authoring
    path("", pages.home, name="home"),
    path("surveys/", authoring.survey_list, name="survey-list"),
    path("surveys/new/", authoring.survey_create, name="survey-create"),
    path("surveys/import/", survey_files.survey_import, name="survey-import"),
    path("surveys/<int:pk>/", authoring.survey_detail, name="survey-detail"),
    path("surveys/<int:pk>/edit/", authoring.survey_edit, name="survey-edit"),
    path("surveys/<int:pk>/delete/", authoring.survey_delete, name="survey-delete"),
    path("surveys/<int:pk>/open/", authoring.survey_open, name="survey-open"),
    path("surveys/<int:pk>/design/", designs.survey_design, name="survey-design"),
    path("surveys/<int:pk>/close/", authoring.survey_close, name="survey-close"),
    path("surveys/<int:pk>/duplicate/", authoring.survey_duplicate, name="survey-duplicate"),
    path("surveys/<int:pk>/preview/", respond.survey_preview, name="survey-preview"),
    path("surveys/<int:pk>/preview/thanks/", respond.survey_preview_thanks,
         name="survey-preview-thanks"),
    path("surveys/<int:pk>/survey.json", survey_files.survey_file, name="survey-file"),
    path("surveys/<int:pk>/qr.svg", distribution.survey_qr, name="survey-qr"),
    path("surveys/<int:pk>/sharing/", sharing.survey_sharing, name="survey-sharing"),
    path("surveys/<int:pk>/questions/new/", authoring.question_create, name="question-create"),
    path("questions/<int:pk>/edit/", authoring.question_edit, name="question-edit"),
    path("questions/<int:pk>/delete/", authoring.question_delete, name="question-delete"),
    path("questions/<int:pk>/move/", authoring.question_move, name="question-move"),
    path("epsilon/explain/", authoring.epsilon_explain, name="epsilon-explain"),
    path(
        "surveys/<int:pk>/translations/",
        translations.translation_list,
        name="survey-translations",
    ),
    path(
        "surveys/<int:pk>/translations/<str:language>/",
        translations.translation_edit,
        name="survey-translation",
    ),
    path("surveys/<int:pk>/wording/", wording.survey_wording, name="survey-wording"),
    path(
        "surveys/<int:pk>/wording/history/",
        wording.survey_wording_history,
        name="survey-wording-history",
    ),
    # Researchers: invitations
    path("surveys/<int:pk>/invitations/", invitations.invitation_list, name="invitation-list"),
    path("surveys/<int:pk>/invitations.csv", invitations.invitation_csv, name="invitation-csv"),
    # Researchers: their account
    path("account/", accounts.account_settings, name="account-settings"),
    path("account/tokens/", tokens.token_list, name="api-tokens"),
    path("account/tokens/<int:pk>/revoke/", tokens.token_revoke, name="api-token-revoke"),
    # Researchers: results and exports
    path("surveys/<int:pk>/results/", results.survey_results, name="survey-results"),
    path("surveys/<int:pk>/results.json", results.survey_results_json, name="survey-results-json"),
    path("surveys/<int:pk>/results/refresh/", results.survey_results_refresh,
         name="survey-results-refresh"),
    path(
        "surveys/<int:pk>/results/<int:question>/breakdown/",
        breakdowns.question_breakdown,
        name="question-breakdown",
    ),
    path(
        "surveys/<int:pk>/results/<int:question>/breakdown.json",
        breakdowns.question_breakdown_json,
        name="question-breakdown-json",
    ),
    path(
        "surveys/<int:pk>/results/<int:question>/breakdown.csv",
        breakdowns.question_breakdown_csv,
        name="question-breakdown-csv",
    ),
    path(
        "surveys/<int:pk>/results/<int:question>/regression/",
        regression.question_regression,
        name="question-regression",
    ),
    path(
        "surveys/<int:pk>/results/<int:question>/regression.json",
        regression.question_regression_json,
        name="question-regression-json",
    ),
    path(
        "surveys/<int:pk>/results/<int:question>/regression.csv",
        regression.question_regression_csv,
        name="question-regression-csv",
    ),
    path(
        "surveys/<int:pk>/results/<int:question>/by-wording/",
        by_wording.question_by_wording,
        name="question-by-wording",
    ),
    path(
        "surveys/<int:pk>/results/<int:question>/by-wording.json",
        by_wording.question_by_wording_json,
        name="question-by-wording-json",
    ),
    path(
        "surveys/<int:pk>/results/<int:question>/by-wording.csv",
        by_wording.question_by_wording_csv,
        name="question-by-wording-csv",
    ),
    path(
        "surveys/<int:pk>/export/reports.csv", results.export_reports_csv, name="export-reports-csv"
    ),
    path("surveys/<int:pk>/export/metadata.json", results.export_metadata, name="export-metadata"),
    path(
        "surveys/<int:pk>/export/estimates.py",
        results.export_redo_script,
        name="export-redo-script",
    ),
    path(
        "surveys/<int:pk>/export/estimates.R",
        results.export_redo_r_script,
        name="export-redo-r-script",
    ),
    path("export/ldp.zip", results.export_library, name="export-library"),
    path("surveys/<int:pk>/export/<str:name>.zip", results.export_bundle, name="export-bundle"),
    path(
        "surveys/<int:pk>/export/reports.<str:extension>",
        results.export_reports_file,
        name="export-reports-file",
    ),
    path(
        "surveys/<int:pk>/export/estimates.csv",
        results.export_estimates_csv,
        name="export-estimates-csv",
    ),
]
