"""Settings for the sensitive-survey site, all read from the environment.

Safe defaults for local use: DEBUG on, SQLite in the project folder. In production set
DEBUG=off, SECRET_KEY, ALLOWED_HOSTS and usually DATABASE_URL (see README).
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

# numpy's linear algebra (OpenBLAS) starts one thread per core for every small matrix
# product unless told otherwise. Each request runs on one core and the server runs several
# workers, so those threads only wait on each other: on a busy 2-core machine a regression
# fit took 17.7 s with them and 6.8 s without. Read when numpy is first imported, which is
# after the settings; a value set in the environment wins.
for _threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")


def env_bool(name: str, default: bool) -> bool:
    value = os.getenv(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.getenv(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)

SECRET_KEY = os.getenv("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off. Generate one with: python -c "
            "'import secrets; print(secrets.token_urlsafe(50))' and export it as SECRET_KEY."
        )
    SECRET_KEY = "insecure-local-development-key-never-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "crispy_forms",
    "crispy_bootstrap5",
    "ninja",  # the API's interactive page, drawn with the Swagger UI files it ships
    "surveys",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "surveysite.middleware.PageLanguageMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "surveysite.middleware.SiteErrorPagesMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "surveysite.middleware.security_headers",
    "surveysite.middleware.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "surveysite.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "surveysite.wsgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.getenv("DB_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers work while a submission is written; IMMEDIATE transactions take the
    # write lock up front, so concurrent submissions queue instead of failing as "locked".
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "survey-list"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en"
# Every page comes in these languages (catalogues under locale/, compiled by the setup): a
# respondent's as their browser or the page's switcher asks, a researcher's as their account
# or browser asks. See surveysite/middleware.py, PageLanguageMiddleware.
LANGUAGES = [("en", "English"), ("es", "Español"), ("fr", "Français"), ("de", "Deutsch")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.getenv("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Security. Behind an HTTPS proxy set SECURE_SSL_REDIRECT, SECURE_HSTS_SECONDS and
# SECURE_PROXY_SSL_HEADER=on (the proxy must set X-Forwarded-Proto). See README.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = int(os.getenv("SECURE_HSTS_SECONDS", "0" if DEBUG else "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
if env_bool("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
# Survey links are secrets: never leak them to other sites. Respondents' pages send
# "no-referrer" (see surveysite/middleware.py); form pages need "same-origin" for CSRF.
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
PERMISSIONS_POLICY = (
    "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()"
)

# The cache holds rate-limit counters (and computed results), shared by every worker and
# app server so that a limit holds across all of them: the database's table `cache_table`,
# or Redis if REDIS_URL is set, with the database's table in its place while Redis cannot be
# reached (surveysite/cache.py). Not local memory: each worker would count apart and let a
# client through up to (number of workers) times the limit. The "database" cache is
# configured whatever REDIS_URL says, so `migrate` always creates its table, and setting or
# unsetting REDIS_URL later needs no other step.
DATABASE_CACHE = {
    "BACKEND": "surveysite.cache.CountingDatabaseCache",
    "LOCATION": "cache_table",
    # Expired entries are deleted as counting goes. Past MAX_ENTRIES live ones Django
    # deletes a third, resetting those clients' counts; every write counts the rows.
    "OPTIONS": {"MAX_ENTRIES": 10000},
}
CACHES = {
    "default": DATABASE_CACHE
    if not os.getenv("REDIS_URL")
    else {
        "BACKEND": "surveysite.cache.RedisWithFallback",
        "LOCATION": os.getenv("REDIS_URL"),
        "OPTIONS": {
            "FALLBACK": "database",
            # After a failure, the database's cache for this long, then Redis again.
            "RETRY_SECONDS": float(os.getenv("REDIS_RETRY_SECONDS", "2")),
            # A Redis that hangs holds a request this long at most (seconds).
            "socket_connect_timeout": 1,
            "socket_timeout": 1,
        },
    },
    "database": DATABASE_CACHE,
    # Computed results and their rendered cards, keyed by what they count and show (they
    # never change): read from this process's memory when it holds them, else from "default".
    "results": {
        "BACKEND": "surveysite.cache.KeptInProcess",
        "LOCATION": "results",
        # Room for a few surveys' snapshots and their result cards (one per question).
        "OPTIONS": {"SHARED": "default", "MAX_ENTRIES": 1000},
    },
}
# While responses arrive, an open survey's results (page, JSON, breakdowns, regressions) are
# recomputed at most once per this many seconds, by one worker for all; 0: at every view
# after a new response.
RESULTS_REFRESH_SECONDS = float(os.getenv("RESULTS_REFRESH_SECONDS", "30"))
# "count/seconds" per client. The client is identified by a keyed hash of its address,
# kept only in the cache and only for the window; it is never stored with reports.
RATELIMIT_SUBMISSIONS = os.getenv("RATELIMIT_SUBMISSIONS", "30/60")
RATELIMIT_SIGN_IN = os.getenv("RATELIMIT_SIGN_IN", "10/300")
RATELIMIT_API = os.getenv("RATELIMIT_API", "60/60")  # per API token, not per client
# Behind a proxy, the client's address is the last one the proxy appended.
RATELIMIT_TRUST_FORWARDED_FOR = env_bool("RATELIMIT_TRUST_FORWARDED_FOR", False)

CRISPY_ALLOWED_TEMPLATE_PACKS = "bootstrap5"
CRISPY_TEMPLATE_PACK = "bootstrap5"

MESSAGE_TAGS = {40: "danger"}  # Bootstrap calls Django's "error" level "danger".

# Logging never includes request bodies: survey reports must not end up in log files.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.getenv("LOG_LEVEL", "WARNING")},
}
