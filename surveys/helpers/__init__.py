"""Small helpers below the models: formatting numbers, times, languages and privacy in words,
and rate limits. They import nothing of the app but ``surveys.ldp``."""
