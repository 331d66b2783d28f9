"""Settings for the fault tests' server: the site's own, plus a pause inside every
submission's write transaction, where the test can kill the worker.

Just before a worker writes the tallies (the last write, after the response count and the
submission row), it connects to the Unix socket at PAUSE_SOCKET, sends its pid and waits for
an answer. The test answers, or kills that worker: a worker it kills is then provably inside
the write transaction, whatever the timing.
"""

import os
import socket

from django.db.backends.signals import connection_created

from surveysite.settings import *  # noqa: F403

PAUSE_SOCKET = os.environ["PAUSE_SOCKET"]
PAUSE_SECONDS = 120
"""The longest a worker waits for the test, so that a test that died cannot hang it."""


def pause_before_tallies(execute, sql, params, many, context):
    if sql.startswith('UPDATE "surveys_tally"'):
        with socket.socket(socket.AF_UNIX) as test:
            test.settimeout(PAUSE_SECONDS)
            test.connect(PAUSE_SOCKET)
            test.sendall(str(os.getpid()).encode())
            test.recv(1)
    return execute(sql, params, many, context)


def install_pause(sender, connection, **kwargs) -> None:
    connection.execute_wrappers.append(pause_before_tallies)


connection_created.connect(install_pause)
