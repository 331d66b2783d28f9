"""``python -m surveys.ldp`` prints the shared test vectors (``tests/ldp_vectors.json``)."""

import json

from . import test_vectors

print(json.dumps(test_vectors(), indent=1))
