"""The results page's bar charts, and its proportions written as text.

``{% bar_chart question %}`` draws one question's results (``surveys.results.question_results``,
with estimates) as server-rendered SVG, so the page needs no script: per answer its label, a
bar for the estimate, the 95% interval's whisker and, for the simulated demo, the true share.

The filters write proportions as the page shows them: ``{{ 0.1234|percent }}`` is "12.3%",
``{{ low|percent_range:high }}`` "10.0%–14.6%", ``{{ 0.043|points }}`` "4.3" (percentage
points, for differences such as margins of error) and ``{{ 0.043|margin }}`` "±4.3 percentage
points"; ``percent`` and ``thousands`` are the site's (``surveys.helpers.numbers``).
``{{ question|shows_truth }}`` tells whether a question's results carry true shares (the
demo's), ``{{ question|small_sample_answers }}`` names its answers whose figures rest on too
little information yet.
"""

from __future__ import annotations

from typing import Any

from django import template

from surveys.helpers.numbers import UNKNOWN, percent, thousands
from surveys.kinds import KINDS
from surveys.queries.results import shows_truth

register = template.Library()
register.filter("shows_truth", shows_truth)
# The site's number formats (surveys/templatetags/numbers.py), for the templates loading charts.
register.filter("percent", percent)
register.filter("thousands", thousands)

# Chart geometry, in SVG user units: the viewBox is CHART_WIDTH wide and the SVG scales to
# its container, so on a 360-pixel phone a 14-unit font still renders at about 13 pixels.
CHART_WIDTH = 360
PLOT_LEFT, PLOT_RIGHT = 16, 288
ROW_HEIGHT, BAR_HEIGHT, HEADER_HEIGHT, AXIS_HEIGHT = 50, 18, 22, 50
LABEL_CHARACTERS = 40


@register.filter
def percent_range(low: float | None, high: float | None) -> str:
    return UNKNOWN if low is None or high is None else f"{percent(low)}–{percent(high)}"


@register.filter
def points(proportion: float | None) -> str:
    return UNKNOWN if proportion is None else f"{100 * proportion:.1f}"


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
    return f"{signed_points(low)} to {signed_points(high)} points"


@register.filter
def whole(number: float | None) -> str:
    """An estimated number of people, rounded: "1,234"."""
    return UNKNOWN if number is None else thousands(round(number))


@register.filter
def margin(proportion: float) -> str:
    """A margin of error in words. Beyond ±100 points (tiny epsilons, few responses) its
    number says only that the reports tell next to nothing yet, so it is not written."""
    if proportion >= 1:
        return "more than ±100 percentage points"
    return f"±{points(proportion)} percentage points"


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
    """The chart's context: the question, the chart's frame and one row per answer. The title
    says what the bars are: by default, all respondents' shares of each answer."""
    categories = question["categories"]
    title = title or (
        f"Bar chart: estimated share of respondents for each answer to “{question['text']}”, "
        "with 95% intervals"
    )
    axis_y = HEADER_HEIGHT + len(categories) * ROW_HEIGHT
    return {
        "question": question,
        "chart": {
            "width": CHART_WIDTH,
            "height": axis_y + AXIS_HEIGHT,
            "plot_left": PLOT_LEFT,
            "plot_right": PLOT_RIGHT,
            "axis_y": axis_y,
            "value_x": CHART_WIDTH - 2,
            "ticks": [{"x": _x(t / 100), "text": f"{t}%"} for t in (0, 25, 50, 75, 100)],
            "title_y": axis_y + 44,
            "center_x": (PLOT_LEFT + PLOT_RIGHT) / 2,
            "bar_height": BAR_HEIGHT,
            "label_characters": LABEL_CHARACTERS,
            "title": title,
        },
        "rows": [
            _row(category, HEADER_HEIGHT + i * ROW_HEIGHT) for i, category in enumerate(categories)
        ],
    }


@register.inclusion_tag("surveys/results/chart.svg.html")
def group_chart(data: dict[str, Any], group: dict[str, Any]) -> dict[str, Any]:
    """One group's bars in a breakdown (``surveys.breakdowns.breakdown_results``): the share of
    each answer within the group, with its interval and, for the demo, the true share."""
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
        f"Bar chart: estimated share of each answer to “{question['text']}” among respondents "
        f"whose answer to “{data['by']['text']}” is “{group['label']}”, with 95% intervals",
    )


def _row(category: dict[str, Any], top: int) -> dict[str, Any]:
    """One answer: its label above, the bar, the interval's whisker, the demo's truth marker."""
    truth = category["truth"]
    bar_y = top + 20
    return {
        **category,
        "label_y": top + 14,
        "bar_y": bar_y,
        "bar_width": round(_x(category["estimate"]) - PLOT_LEFT, 1),
        "whisker_y": bar_y + BAR_HEIGHT / 2,
        "cap_top": bar_y - 4,
        "cap_bottom": bar_y + BAR_HEIGHT + 4,
        "value_y": bar_y + BAR_HEIGHT / 2 + 5,
        "low_x": _x(category["ci_low"]),
        "high_x": _x(category["ci_high"]),
        "truth_x": None if truth is None else _x(truth),
        "truth_bottom": bar_y + BAR_HEIGHT + 8,
    }


def _x(proportion: float) -> float:
    return round(PLOT_LEFT + (PLOT_RIGHT - PLOT_LEFT) * proportion, 1)
