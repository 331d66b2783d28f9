"""How respondents reach the people who run a study: an e-mail address or a web address."""

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator, validate_email


def contact_link(contact: str) -> str | None:
    """The link to ``contact``: ``mailto:`` for an e-mail address, the address itself for an
    http(s) web address, None for anything else (never javascript:, data: or ftp:)."""
    contact = contact.strip()
    if not contact:
        return None
    try:
        validate_email(contact)
        return f"mailto:{contact}"
    except ValidationError:
        pass
    try:
        URLValidator(schemes=["http", "https"])(contact)
        return contact
    except ValidationError:
        return None
