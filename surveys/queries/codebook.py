"""README.txt, the codebook of a survey's downloads: what each file holds and what each
column of the reports and estimates files means, for a reader without the site's docs.

The reports' columns are described with the very labels the SPSS and Stata files carry
(``stats_files.column_labels``), the estimates' from ``ESTIMATE_MEANINGS`` (a test checks
that it names every column of ``results.ESTIMATE_COLUMNS``). Written in English, like the
files' other descriptions (the metadata, the SPSS document); the survey's texts are in its
own language.
"""

from __future__ import annotations

import textwrap

from surveys.models import Survey
from surveys.queries.results import ESTIMATE_COLUMNS, PRIVACY_NOTE, report_rows
from surveys.queries.stats_files import column_labels

FILES = {
    "reports.csv": "The randomized reports, one row per response (UTF-8, comma-separated). "
    "Its columns are below.",
    "metadata.json": "What the reports' columns mean, for programs: each question's text, "
    "answers, randomization and its parameters; the scripts read it.",
    "reports.sav": "The reports for SPSS (and R's haven, pandas' pyreadstat), with every "
    "variable and value labelled; DISPLAY DOCUMENTS shows how each question was randomized.",
    "reports.dta": "The reports for Stata 14 or later, with every variable and value "
    "labelled; each variable label starts with its randomization in brief.",
    "estimates.csv": "The results page's estimates, one row per answer of every question. Its "
    "columns are below.",
    "estimates.py": "A Python script that redoes every estimate from the reports and the "
    "metadata, with the ldp folder beside it (numpy and scipy): python <this file>.",
    "estimates.R": "The same in R, needing base R and the jsonlite package: Rscript <this file>.",
    "ldp": "The estimation library the Python script imports (a folder of Python files).",
}
"""What each file of a download is, by its name after ``survey-<id>-``."""

ESTIMATE_MEANINGS = {
    "question": "The question's position, from 1.",
    "question_text": "The question.",
    "answer_index": "The answer's index, from 0 (the reports' codes).",
    "answer": "The answer (a number question: a bin of its range).",
    "n": "Responses the question's estimates are computed from.",
    "estimate": "The estimated share of respondents giving this answer, 0 to 1: the headline "
    "to quote, with its interval.",
    "ci_low": "Lower end of the estimate's 95% interval.",
    "ci_high": "Upper end of the estimate's 95% interval.",
    "support_count": "Reports that support this answer (the count the estimate is computed "
    "from).",
    "unbiased": "The unbiased estimate of the share: exactly unbiased, but may fall below 0 or "
    "above 1.",
    "std_error": "Standard error of the unbiased estimate.",
    "unbiased_ci_low": "Lower end of the unbiased estimate's 95% Wald interval.",
    "unbiased_ci_high": "Upper end of the unbiased estimate's 95% Wald interval.",
    "mle": "The maximum-likelihood estimate of the share.",
    "mechanism": "The randomization method's name (the metadata describes it).",
    "epsilon": "The question's privacy level, epsilon: smaller protects more.",
    "consistent": "The unbiased shares made valid (none below 0, summing to 1; Norm-Sub).",
    "small_sample": "True when too few reports for the interval to be trusted: quote with care.",
    "estimate_method": "The method behind estimate.",
    "interval_method": "The method behind ci_low and ci_high.",
    "score": "Rating scales: the answer's point on the scale, 1 to k; empty otherwise.",
    "mean_score": "Rating scales: the question's mean score, repeated on each of its rows.",
    "mean_score_ci_low": "Rating scales: lower end of the mean score's 95% interval.",
    "mean_score_ci_high": "Rating scales: upper end of the mean score's 95% interval.",
    "mean": "The question's mean, repeated on each of its rows: a rating scale's mean score, "
    "a check-all question's mean number of options ticked, a number question's mean (among "
    "those who answered or were asked, where it has such answers); empty for other kinds.",
    "mean_ci_low": "Lower end of the mean's 95% interval.",
    "mean_ci_high": "Upper end of the mean's 95% interval.",
    "mean_unbiased": "The mean's unbiased estimate, which may fall outside the scale.",
    "mean_std_error": "Standard error of the mean's unbiased estimate.",
    "answered": "Questions with \"No answer\" or \"Not asked\": the estimated share who "
    "answered (or were asked), one minus those rows' estimates; empty otherwise.",
    "among_estimate": "The answer's estimated share among those who answered (or were "
    "asked), on the question's own answers' rows; empty otherwise.",
    "among_ci_low": "Lower end of that share's 95% interval.",
    "among_ci_high": "Upper end of that share's 95% interval.",
    "anchor_p_value": "Validation anchors: the exact test's p-value of the answers against "
    "the known share (small: respondents may not have understood the randomization).",
    "careless": "Validation anchors: the estimated share of careless respondents.",
    "careless_ci_low": "Lower end of that share's 95% interval.",
    "careless_ci_high": "Upper end of that share's 95% interval.",
}
"""What each column of the estimates file means."""

WORDING = ("The wording version the respondent's page showed (the metadata's wordings say "
           "what each was); blank if not recorded. Not in the SPSS and Stata files")
"""What the reports CSV's ``wording`` column means."""

WIDTH = 78
"""The README's line width, in characters."""


def _entry(name: str, text: str) -> str:
    """``name`` and its meaning, the meaning wrapped and indented under it."""
    return f"{name}\n" + textwrap.fill(text, WIDTH, initial_indent="    ",
                                       subsequent_indent="    ", break_on_hyphens=False)


def _values(labels: dict[int, str]) -> str:
    """Value labels in a line, a run of values with one label as one: "64-93 = No answer"."""
    runs: list[list] = []  # [first value, last value, label]
    for value, label in labels.items():
        if runs and runs[-1][2] == label and runs[-1][1] == value - 1:
            runs[-1][1] = value
        else:
            runs.append([value, value, label])
    return "; ".join(f"{a} = {label}" if a == b else f"{a}-{b} = {label}"
                     for a, b, label in runs)


def readme(survey: Survey, files: list[str]) -> str:
    """README.txt of a download holding ``files`` (keys of ``FILES``): the survey, what
    sharing the reports reveals, each file, then the columns of the reports (if any of its
    files is there) and of the estimates (if that is)."""
    prefix = f"survey-{survey.pk}-"
    parts = [
        f"Survey {survey.pk}: {survey.title}",
        textwrap.fill(PRIVACY_NOTE, WIDTH),
        "FILES\n\n" + "\n".join(
            _entry(f"{prefix}{name}" if name != "ldp" else "ldp/", FILES[name]) for name in files
        ),
    ]
    if {"reports.csv", "reports.sav", "reports.dta"} & set(files):
        found = column_labels(survey)
        header = next(report_rows(survey))
        entries = []
        labels = {**found.labels, "wording": WORDING}
        for name in header:
            text = labels[name]
            if name in found.value_labels:
                text += (" " if text[-1] in ".?!" else ". ") + "Values: " + _values(
                    found.value_labels[name])
            entries.append(_entry(name, text))
        parts += [
            "COLUMNS OF THE REPORTS (the CSV; the SPSS and Stata variables are the same but "
            "wording)\n\n" + "\n".join(entries),
            "HOW EACH QUESTION WAS RANDOMIZED\n\n" + "\n\n".join(
                textwrap.fill(paragraph, WIDTH) for paragraph in found.document
            ),
        ]
    if "estimates.csv" in files:
        parts.append("COLUMNS OF THE ESTIMATES\n\n" + "\n".join(
            _entry(name, ESTIMATE_MEANINGS.get(name, "See docs/exports.md of the site."))
            for name in ESTIMATE_COLUMNS
        ))
    parts.append("The site's guide to these files, with the formulas: docs/exports.md of "
                 "its source.")
    return "\n\n".join(parts) + "\n"
