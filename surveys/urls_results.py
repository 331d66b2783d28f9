"""The researcher's results dashboard, its JSON endpoint and the exports."""

from django.urls import path

from surveys.views import results

urlpatterns = [
    path("surveys/<int:pk>/results/", results.survey_results, name="survey-results"),
    path("surveys/<int:pk>/results.json", results.survey_results_json, name="survey-results-json"),
    path(
        "surveys/<int:pk>/export/reports.csv", results.export_reports_csv, name="export-reports-csv"
    ),
    path("surveys/<int:pk>/export/metadata.json", results.export_metadata, name="export-metadata"),
    path(
        "surveys/<int:pk>/export/estimates.csv",
        results.export_estimates_csv,
        name="export-estimates-csv",
    ),
]
