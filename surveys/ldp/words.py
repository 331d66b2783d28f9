"""The core's sentences that pages show (the names and descriptions of its methods) are
marked with ``gettext_noop`` so that the translation catalogues collect them (Django's
``makemessages`` looks for calls of that name); the pages translate them when they show them
(``django.utils.translation.gettext``). The core itself stays free of Django."""


def gettext_noop(message: str) -> str:
    """``message`` itself: marks it for the translation catalogues."""
    return message
