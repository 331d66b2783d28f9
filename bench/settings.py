"""Settings for bench/bench_load.py: the site's own, plus the baseline view's URL."""

from surveysite.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
