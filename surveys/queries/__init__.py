"""The read side: results and breakdowns (``results``, ``breakdowns``), when a survey takes
answers (``schedule``), the texts respondents read (``wording``, ``revisions``) and who may
see which survey (``access``)."""
