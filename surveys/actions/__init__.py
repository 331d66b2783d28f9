"""Every write that touches more than one row or model, each checked before it writes:
opening, closing and duplicating surveys (``surveys``), correcting an opened survey's
wording (``wording``), storing submissions (``submissions``), sharing (``sharing``) and the
demo's simulated respondents (``simulate``). "Frozen once opened" is enforced here."""
