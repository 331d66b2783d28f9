"""The site's languages by name."""

from django.utils.translation import get_language_info


def language_name(code: str) -> str:
    """A language of ``settings.LANGUAGES`` by its name in the page's language ("Spanish")."""
    return get_language_info(code)["name_translated"]
