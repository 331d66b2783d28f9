"""WSGI entry point, used by gunicorn: `gunicorn surveysite.wsgi`."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveysite.settings")
application = get_wsgi_application()
