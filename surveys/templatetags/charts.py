"""The results page's bar charts, and its proportions written as text.

``{% bar_chart question %}`` draws one question's results
(``surveys.queries.results.question_results``, with estimates) as server-rendered SVG, so the
page needs no script: per answer its label, a bar for the estimate, the 95% interval's whisker
and, for the simulated demo, the true share.

The filters write proportions as the page shows them: ``{{ 0.1234|percent }}`` is "12.3%",
``{{ low|percent_range:high }}`` "10.0%–14.6%", ``{{ 0.043|points }}`` "4.3" (percentage
points, for differences such as margins of error) and ``{{ 0.043|margin }}`` "±4.3 percentage
points"; ``percent`` and ``thousands`` are the site's (``surveys.helpers.numbers``).
``{{ question|shows_truth }}`` tells whether a question's results carry true shares (the
demo's), ``{{ question|small_sample_answers }}`` names its answers whose figures rest on too
little information yet.

``{% drawn_cards data survey %}`` writes the results page's question cards, each cached by
what it shows, and ``{% methods_shown data %}`` the methods the page then explains once.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from typing import Any

from django import template
from django.core.cache import caches
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext

from surveys.helpers.numbers import (
    UNKNOWN,
    amount,
    decimal,
    epsilon,
    percent,
    signed_score,
    thousands,
)
from surveys.kinds import KINDS
from surveys.kinds.answers import NOT_ASKED
from surveys.models import Survey
from surveys.queries.results import (
    CACHE_SECONDS,
    RESULTS_VERSION,
    shows_truth,
    true_among,
    true_mean,
)

register = template.Library()
register.filter("shows_truth", shows_truth)
# The site's number formats (surveys/helpers/numbers.py), for the templates loading charts.
register.filter("percent", percent)
register.filter("thousands", thousands)

# Chart geometry, in SVG user units: the viewBox is CHART_WIDTH wide and the SVG scales to
# its container, so on a 360-pixel phone a 14-unit font still renders at about 13 pixels.
CHART_WIDTH = 360
PLOT_LEFT, PLOT_RIGHT = 16, 288
ROW_HEIGHT, BAR_HEIGHT, HEADER_HEIGHT, AXIS_HEIGHT = 50, 18, 22, 50
LABEL_CHARACTERS = 40
MEAN_PLOT_RIGHT = 344


@register.filter
def percent_range(low: float | None, high: float | None) -> str:
    return UNKNOWN if low is None or high is None else f"{percent(low)}–{percent(high)}"


@register.filter
def points(proportion: float | None) -> str:
    return UNKNOWN if proportion is None else decimal(100 * proportion, 1)


@register.filter
def signed_points(difference: float | None) -> str:
    """A difference of shares in percentage points, with its sign: "+4.3", "−2.0"."""
    if difference is None:
        return UNKNOWN
    return f"{'+' if difference >= 0 else '−'}{points(abs(difference))}"


@register.filter
def points_range(low: float | None, high: float | None) -> str:
    """An interval for a difference, in percentage points: "−1.2 to +8.4 points"."""
    if low is None or high is None:
        return UNKNOWN
    return gettext("%(low)s to %(high)s points") % {
        "low": signed_points(low), "high": signed_points(high)
    }


@register.filter
def whole(number: float | None) -> str:
    """An estimated number of people, rounded: "1,234"."""
    return UNKNOWN if number is None else thousands(round(number))


@register.filter
def margin(proportion: float) -> str:
    """A margin of error in words. Beyond ±100 points (tiny epsilons, few responses) its
    number says only that the reports tell next to nothing yet, so it is not written."""
    if proportion >= 1:
        return gettext("more than ±100 percentage points")
    return gettext("±%(points)s percentage points") % {"points": points(proportion)}


def number_margin(number: dict[str, Any]) -> str:
    """A number question's margin of error on its mean, in its unit: "±2.4". Beyond the
    whole range (few responses) its number says only that the reports tell next to nothing
    yet, so it is not written."""
    if number["mean_margin"] >= number["high"] - number["low"]:
        return gettext("more than the whole range")
    return f"±{amount(number['mean_margin'], number['decimals'])}"


@register.filter
def kind_headline(question: dict[str, Any]) -> str | None:
    """The template of the part of a question's results card above its chart (its kind's
    ``headline_template``), or None."""
    return KINDS[question["kind"]].headline_template


NAMED_ANSWERS = 3
"""``small_sample_answers`` names at most this many answers: a warning is no place for a list."""


@register.filter
def small_sample_answers(question: dict[str, Any]) -> str:
    """A question's answers flagged ``small_sample``, in words: "these figures" when all are,
    else their quoted labels ("“A”", "“A” and “B”", "“A”, “B” and “C”"), or the first
    ``NAMED_ANSWERS`` and a count ("“A”, “B”, “C” and 4 other answers")."""
    categories = question["categories"] or []
    labels = [f"“{c['label']}”" for c in categories if c["small_sample"]]
    if len(labels) == len(categories):
        return "these figures"
    if len(labels) > NAMED_ANSWERS:
        rest = len(labels) - NAMED_ANSWERS
        labels = [*labels[:NAMED_ANSWERS], f"{rest} other answer{'s' if rest > 1 else ''}"]
    if len(labels) < 2:
        return "".join(labels)
    return f"{', '.join(labels[:-1])} and {labels[-1]}"


@register.inclusion_tag("surveys/results/chart.svg.html")
def bar_chart(question: dict[str, Any], title: str = "") -> dict[str, Any]:
    """A question's chart (``chart``): all respondents' shares of each answer."""
    return {"question": question, "chart": chart(question, title)}


@register.inclusion_tag("surveys/results/chart.svg.html")
def group_chart(data: dict[str, Any], group: dict[str, Any]) -> dict[str, Any]:
    """One group's bars in a breakdown (``surveys.queries.breakdowns.breakdown_results``): the
    share of each answer within the group, with its interval and, for the demo, the true
    share."""
    question = data["question"]
    answers = {
        "position": f"{question['position']}-group-{group['index']}",
        "text": question["text"],
        "categories": [
            {**answer, "estimate": answer["share"]} for answer in group["answers"]
        ],
    }
    return bar_chart(
        answers,
        gettext(
            "Bar chart: estimated share of each answer to “%(question)s” among respondents "
            "whose answer to “%(by)s” is “%(group)s”, with 95%% intervals"
        ) % {"question": question["text"], "by": data["by"]["text"], "group": group["label"]},
    )


@register.inclusion_tag("surveys/results/mean.svg.html")
def group_mean_chart(data: dict[str, Any], group: dict[str, Any]) -> dict[str, Any]:
    """One group's mean in a breakdown of a number question (``breakdown_results``), drawn
    as ``mean_chart`` draws the mean of all respondents."""
    question = data["question"]
    return mean_chart(
        {
            "position": f"{question['position']}-group-{group['index']}",
            "text": question["text"],
            "number": {**data["number"], "mean": group["mean"]},
        },
        gettext("The estimated mean of “%(text)s” among respondents whose answer to "
                "“%(by)s” is “%(label)s”, with its 95%% interval")
        % {"text": question["text"], "by": data["by"]["text"], "label": group["label"]},
    )


@register.inclusion_tag("surveys/results/mean.svg.html")
def mean_chart(question: dict[str, Any], title: str = "") -> dict[str, Any]:
    """A number question's mean on its range (``question["number"]``): a dot at the estimate,
    the 95% interval's whisker with its caps, and the range's axis with its ends and middle
    marked; every figure in words in its description. The title says whose mean it is: by
    default, all respondents'."""
    number = question["number"]
    low, high, decimals = number["low"], number["high"], number["decimals"]
    mean = number["mean"]

    def x(value: float) -> str:
        return _number(PLOT_LEFT + (MEAN_PLOT_RIGHT - PLOT_LEFT) * (value - low) / (high - low))

    ends = f"{low:,.{decimals}f}", f"{high:,.{decimals}f}"
    words = gettext(
        "Mean %(mean)s, 95%% interval %(low)s to %(high)s, on the range from %(start)s to "
        "%(end)s."
    ) % {"mean": amount(mean["estimate"], decimals), "low": amount(mean["ci_low"], decimals),
         "high": amount(mean["ci_high"], decimals), "start": ends[0], "end": ends[1]}
    return {
        "question": question,
        "width": CHART_WIDTH,
        "title": title or gettext(
            "The estimated mean of “%(text)s” on its range, with its 95%% interval"
        ) % {"text": question["text"]},
        "description": words,
        "axis_left": PLOT_LEFT,
        "axis_right": MEAN_PLOT_RIGHT,
        "ticks": [
            {"x": x(value), "text": text} for value, text in (
                (low, ends[0]), ((low + high) / 2, f"{(low + high) / 2:,.{decimals + 1}f}"),
                (high, ends[1]),
            )
        ],
        "whisker": (
            f"M{x(mean['ci_low'])} 24H{x(mean['ci_high'])}"
            f"M{x(mean['ci_low'])} 16V32M{x(mean['ci_high'])} 16V32"
        ),
        "dot": x(mean["estimate"]),
    }


def chart(question: dict[str, Any], title: str = "") -> dict[str, Any]:
    """What ``chart.svg.html`` draws of a question's results (``question_results``, with
    estimates), every number and text written already: the chart's frame, its title and
    description (every figure in words, for screen readers) and one row per answer. The title
    says what the bars are: by default, all respondents' shares of each answer."""
    categories = question["categories"]
    title = title or (
        gettext(
            "Bar chart: estimated share of respondents in each bin of “%(question)s”, "
            "estimates without intervals"
        )
        if question.get("number") else
        gettext(
            "Bar chart: estimated share of respondents for each answer to “%(question)s”, "
            "with 95%% intervals"
        )
    ) % {"question": question["text"]}
    axis_y = HEADER_HEIGHT + len(categories) * ROW_HEIGHT
    ticks = [{"x": _number(_x(t / 100)), "text": f"{t}%"} for t in (0, 25, 50, 75, 100)]
    return {
        "width": CHART_WIDTH,
        "height": axis_y + AXIS_HEIGHT,
        "plot_left": PLOT_LEFT,
        # The grid's vertical lines, then the axis with its tick marks: one path each.
        "grid": "".join(f"M{tick['x']} {HEADER_HEIGHT}V{axis_y}" for tick in ticks),
        "axis": f"M{PLOT_LEFT} {axis_y}H{PLOT_RIGHT}"
        + "".join(f"M{tick['x']} {axis_y}v5" for tick in ticks),
        "tick_text_y": axis_y + 21,
        "value_dx": CHART_WIDTH - 2 - PLOT_LEFT,
        "value_x": CHART_WIDTH - 2,
        "ticks": ticks,
        "title_y": axis_y + 44,
        "center_x": _number((PLOT_LEFT + PLOT_RIGHT) / 2),
        "bar_height": BAR_HEIGHT,
        "title": title,
        "description": _description(categories),
        "intervals": any(category["ci_low"] is not None for category in categories),
        "rows": [
            _chart_row(category, HEADER_HEIGHT + i * ROW_HEIGHT)
            for i, category in enumerate(categories)
        ],
    }


def _description(categories: list[dict[str, Any]]) -> str:
    """Every answer's figures in a sentence, then where the table is."""
    sentences = []
    for category in categories:
        if category["ci_low"] is None:  # a number question's bins: estimates without interval
            sentence = gettext("%(label)s: %(estimate)s") % {
                "label": category["label"], "estimate": percent(category["estimate"]),
            }
        else:
            sentence = gettext("%(label)s: %(estimate)s (95%% interval %(interval)s)") % {
                "label": category["label"],
                "estimate": percent(category["estimate"]),
                "interval": percent_range(category["ci_low"], category["ci_high"]),
            }
        if category["truth"] is not None:
            sentence += gettext(", true share %(truth)s") % {"truth": percent(category["truth"])}
        sentences.append(f"{sentence}. ")
    return "".join(sentences) + gettext("The table next to the chart has the same numbers.")


def _chart_row(category: dict[str, Any], top: int) -> dict[str, Any]:
    """One answer, drawn from ``top`` down: its label above, the bar, the 95% interval's
    whisker with its caps (one path), the demo's truth marker, and the estimate at the
    right. x is measured from the plot's left edge. No whisker without an interval (a number
    question's bins), no bar without an estimate (a group the breakdown estimates as empty)."""
    bar_y = 20
    middle, cap_top, cap_bottom = bar_y + BAR_HEIGHT / 2, bar_y - 4, bar_y + BAR_HEIGHT + 4
    whisker = None
    if category["ci_low"] is not None:
        low, high = _x(category["ci_low"]) - PLOT_LEFT, _x(category["ci_high"]) - PLOT_LEFT
        whisker = (
            f"M{_number(low)} {_number(middle)}H{_number(high)}"
            f"M{_number(low)} {cap_top}V{cap_bottom}M{_number(high)} {cap_top}V{cap_bottom}"
        )
    truth = category["truth"]
    return {
        "top": str(top),
        "label": _truncated(category["label"]),
        "bar_width": _number(_x(category["estimate"] or 0) - PLOT_LEFT),
        "whisker": whisker,
        "truth": None if truth is None else (
            f"M{_number(_x(truth) - PLOT_LEFT)} {cap_top}V{bar_y + BAR_HEIGHT + 8}"
        ),
        "estimate": percent(category["estimate"]),
    }


def _truncated(label: str) -> str:
    """A label of at most ``LABEL_CHARACTERS`` characters, its end cut to "…" if longer."""
    if len(label) <= LABEL_CHARACTERS:
        return label
    return f"{label[: LABEL_CHARACTERS - 1]}…"


def _x(proportion: float) -> float:
    return round(PLOT_LEFT + (PLOT_RIGHT - PLOT_LEFT) * proportion, 1)


def _number(coordinate: float) -> str:
    """An SVG coordinate, to a tenth of a unit: "16", "104.5"."""
    return f"{round(coordinate, 1):g}"


@register.simple_tag(takes_context=True)
def drawn_cards(context: template.Context, data: dict[str, Any], survey: Survey) -> str:
    """The results page's question cards (``data`` is ``survey_results``), as HTML.

    A card is a function of what it shows: its question's results, the survey (its id, and
    whether it is a draft), the planner's constants from the page (``target_points``,
    ``planner_limit``), whether another question may group it, the language and
    ``RESULTS_VERSION``. Each is cached under a hash of those, so that a new snapshot draws
    only the cards whose figures changed, and the page's live script swaps only those (the
    hash is the card's ``data-key``). All of a snapshot's cards are kept together too, so
    that a view of cached results reads them in one step."""
    kept = caches["results"]
    together = f"cards-{data['snapshot']}" if data["snapshot"] else None
    html = kept.get(together) if together else None
    if html is None:
        groupers = [q["id"] for q in data["questions"] if KINDS[q["kind"]].groups]
        html = "".join(
            _drawn_card(question, {
                "survey_pk": survey.pk,
                "is_draft": survey.is_draft,
                "target_points": context["target_points"],
                "planner_limit": context["planner_limit"],
                "breakdown": any(pk != question["id"] for pk in groupers),
            })
            for question in data["questions"]
        )
        if together:
            kept.set(together, html, CACHE_SECONDS)
    return mark_safe(html)  # noqa: S308 (drawn by the template, which escapes)


def _drawn_card(question: dict[str, Any], shown: dict[str, Any]) -> str:
    """One question's card (``drawn_cards``), from the cache if one with what it shows is."""
    kept = caches["results"]
    inputs = json.dumps([RESULTS_VERSION, get_language(), shown, question], default=str)
    key = "card-" + hashlib.sha256(inputs.encode()).hexdigest()[:32]
    html = kept.get(key)
    if html is None:
        html = str(render_to_string(
            "surveys/results/question.html",
            {**shown, "key": key, "question": question, "card": result_card(question)},
        ))
        kept.set(key, html, CACHE_SECONDS)
    return html


@register.simple_tag
def methods_shown(data: dict[str, Any]) -> set[str]:
    """The keys of ``data["methods"]`` (``survey_results``) that made a figure of its cards:
    the page explains those once, under the cards."""
    shown = set()
    for question in data["questions"]:
        if question["categories"]:
            shown.add("number" if question["number"] else "estimate")
        if question["among"]:
            shown.add(question["among"]["method"])
        if question["mean_score"] and question["categories"]:
            shown.add("mean_score")
    return shown


def result_card(question: dict[str, Any]) -> dict[str, Any]:
    """What a question's results card shows (``question`` is one of ``survey_results``'s
    questions), written once here so that its templates only place it: its ``n`` and
    ``epsilon`` as text and, once it has estimates, ``has_truth``, the ``margin`` of error and
    the answers whose figures rest on too little information (``small_sample_answers``) in
    words, the template of its kind's ``headline``, its ``chart`` (``chart``) and one row per
    answer with every figure of its tables as text (``_table_row``); for a question with
    extra answers, ``among_rows``: its own answers' shares among those who gave one, as text
    (with the demo's true share, ``true_among``), ``true_mean``: the demo's true mean score or
    number ticked (``true_mean``), and ``among_alone``: whether they come from its own
    reports alone although it is conditional (``results.asked_jointly`` does not hold)."""
    card = {
        "n": thousands(question["n"]),
        "epsilon": epsilon(question["mechanism"]["epsilon"]),
    }
    if question["categories"]:
        card |= {
            "headline": kind_headline(question),
            "has_truth": shows_truth(question),
            "margin": (
                number_margin(question["number"]) if question.get("number")
                else margin(question["margin_of_error"])
            ),
            "small_sample_answers": small_sample_answers(question),
            "chart": chart(question),
            "rows": [_table_row(category) for category in question["categories"]],
            "among_rows": [
                {"label": category["label"], "estimate": percent(category["estimate"]),
                 "interval": percent_range(category["ci_low"], category["ci_high"]),
                 "truth": percent(truth)}
                for category, truth in zip(
                    (question["among"] or {}).get("categories", []),
                    true_among(question) or itertools.repeat(None), strict=False)
            ],
            "true_mean": true_mean(question),
            "among_alone": _among_alone(question),
        }
    return card


def _among_alone(question: dict[str, Any]) -> bool:
    """Whether a conditional question's shares among those asked come from its own reports
    alone: its last answer (``labels`` are in English) is "Not asked" and its ``among``
    method is not the joint one."""
    with translation.override("en"):
        not_asked = str(NOT_ASKED)
    among = question["among"]
    return among is not None and among["method"] == "among" and question["labels"][-1] == not_asked


def _table_row(category: dict[str, Any]) -> dict[str, Any]:
    """An answer's figures as the tables write them."""
    return {
        "label": category["label"],
        "estimate": percent(category["estimate"]),
        "interval": percent_range(category["ci_low"], category["ci_high"]),
        "truth": percent(category["truth"]),
        "support_count": thousands(category["support_count"]),
        "unbiased": percent(category["unbiased"]),
        "std_error": points(category["std_error"]),
        "unbiased_interval": percent_range(
            category["unbiased_ci_low"], category["unbiased_ci_high"]
        ),
        "consistent": percent(category["consistent"]),
    }


ODDS_LIMITS = (0.01, 100.0)
"""The widest odds-ratio axis the regression chart draws; a whisker beyond it ends in an
arrow (its interval goes on, or is unbounded)."""


@register.inclusion_tag("surveys/results/coefficients.svg.html")
def coefficient_chart(data: dict[str, Any]) -> dict[str, Any]:
    """A regression's coefficients (``regression_results``): odds ratios on a logarithmic
    axis (logistic) or differences of mean scores on a linear one (linear). Per coefficient
    its label, a dot at the estimate and its 95% interval's whisker, with the line of no
    effect (1 or 0) marked; every figure in words in the description."""
    logistic = data["model"] == "logistic"
    rows = [(p, c) for p in data["predictors"] for c in p["coefficients"]]
    ends = [v for _, c in rows for v in (c["ci_low"], c["ci_high"], c["estimate"])
            if v is not None]
    if logistic:
        low = max(min([0.5, *ends]) / 1.25, ODDS_LIMITS[0])  # a margin beyond the ends
        high = min(max([2.0, *ends]) * 1.25, ODDS_LIMITS[1])
        scale, none, written = math.log, 1.0, odds_ratio
        ticks = [t for t in (0.01, 0.1, 0.25, 0.5, 1, 2, 4, 10, 100) if low <= t <= high]
    else:
        reach = max([0.5, *(abs(v) for v in ends)]) * 1.1
        low, high = -reach, reach
        scale, none, written = (lambda v: v), 0.0, signed_score
        step = _tick_step(reach)
        ticks = [i * step for i in range(-int(reach / step), int(reach / step) + 1)]

    def x(value: float | None, unbounded: float) -> float:
        value = unbounded if value is None else min(max(value, low), high)
        share = (scale(value) - scale(low)) / (scale(high) - scale(low))
        return PLOT_LEFT + (MEAN_PLOT_RIGHT - PLOT_LEFT) * share

    drawn, sentences = [], []
    for i, (predictor, c) in enumerate(rows):
        left, right = x(c["ci_low"], low), x(c["ci_high"], high)
        arrows = "".join(
            f"M{_number(end)} 24l{_number(-6 * side)} -5v10z"
            for end, side, value, limit in ((left, -1, c["ci_low"], low),
                                            (right, 1, c["ci_high"], high))
            if value is None or (value - limit) * side > 0  # beyond the axis, or unbounded
        )
        drawn.append({
            "top": HEADER_HEIGHT + i * ROW_HEIGHT,
            "label": _truncated(f"{predictor['position']}. {c['label']}"),
            "whisker": f"M{_number(left)} 24H{_number(right)}",
            "arrows": arrows,
            "dot": None if c["estimate"] is None else _number(x(c["estimate"], high)),
        })
        words = {
            "label": f"{predictor['text']}, {c['label']}", "estimate": written(c["estimate"]),
            "low": written(c["ci_low"]) if c["ci_low"] is not None else "0",  # odds only
            "high": written(c["ci_high"]) if c["ci_high"] is not None else "∞",
        }
        sentences.append((gettext(
            "%(label)s: odds ratio %(estimate)s, 95%% interval %(low)s to %(high)s."
        ) if logistic else gettext(
            "%(label)s: difference %(estimate)s, 95%% interval %(low)s to %(high)s."
        )) % words)
    axis_y = HEADER_HEIGHT + len(rows) * ROW_HEIGHT
    outcome = data["outcome"]["text"]
    return {
        "chart_id": f"coefficients-{data['outcome']['position']}",
        "width": CHART_WIDTH,
        "height": axis_y + AXIS_HEIGHT,
        "axis_y": axis_y,
        "plot_left": PLOT_LEFT,
        "plot_right": MEAN_PLOT_RIGHT,
        "none": _number(x(none, none)),
        "ticks": [{"x": _number(x(t, t)), "text": written(t)} for t in ticks],
        "rows": drawn,
        "title": (gettext(
            "Odds ratios of answering Yes to “%(text)s”, with 95%% intervals, on a "
            "logarithmic scale"
        ) if logistic else gettext(
            "Differences in the mean of “%(text)s”, with 95%% intervals"
        )) % {"text": outcome},
        "description": " ".join(sentences),
    }


def _tick_step(reach: float) -> float:
    """A round step giving two to five ticks on each side of 0 up to ``reach``."""
    step = 10 ** math.floor(math.log10(reach))
    for factor in (0.2, 0.5, 1.0):
        if reach / (step * factor) <= 5:
            return step * factor
    return step


@register.filter
def odds_ratio(value: float | None) -> str:
    """An odds ratio as the page writes it: two significant digits at least ("0.43",
    "1.2", "12"); "∞" for an interval's open end (None)."""
    if value is None:
        return "∞"
    return decimal(value, 2 if value < 1 else 1 if value < 10 else 0)
