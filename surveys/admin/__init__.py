"""The Django admin: surveys with their questions and translations, and the site's privacy
policy (``surveys``); API tokens (``tokens``); the "Add user" page that makes a researcher in
one step (``users``)."""

from surveys.admin import surveys, tokens, users  # noqa: F401 (importing them registers their admins)
