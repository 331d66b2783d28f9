"""Why the site picks a categorical question's method, in one sentence of the page's
language (``surveys.kinds.base.choice_reason``)."""

from django.utils import translation

from surveys.kinds.base import choice_reason


def test_choice_reason_is_one_sentence_naming_the_choice():
    assert "(GRR)" in choice_reason(1.0, 6) and "= 10.2;" in choice_reason(1.0, 6)
    assert "(OUE)" in choice_reason(1.0, 20)
    for k in (6, 20):
        reason = choice_reason(1.0, k)
        assert reason.endswith(".") and reason.count(". ") == 0


def test_choice_reason_in_the_pages_language():
    with translation.override("de"):
        reason = choice_reason(1.0, 6)
    assert reason != choice_reason(1.0, 6) and "10,2" in reason
