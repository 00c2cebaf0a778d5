"""Which entries of the server's log the soak accepts: the refusals it provokes, only."""

from __future__ import annotations

from soak.logs import classify, entries

LOG = """\
[auth][warn] JWTSessionError: Read more at https://errors.authjs.dev#jwtsessionerror
Traceback (most recent call last):
  File "/src/sansio_auth/jwt.py", line 157, in decode
    raise InvalidToken("authentication tag mismatch")
sansio_auth.jwt.InvalidToken: authentication tag mismatch
[auth][warn] CredentialsSignin: Read more at https://errors.authjs.dev#credentialssignin

[auth][warn] MissingCSRF: CSRF token was missing during an action signout
[auth][warn] JWTSessionError: bad
"""


def test_provoked_refusals_are_counted_with_their_tracebacks() -> None:
    refusals, unexpected = classify(LOG)
    assert refusals == {"JWTSessionError": 2, "CredentialsSignin": 1, "MissingCSRF": 1}
    assert unexpected == []
    assert len(entries(LOG)) == 4


def test_anything_else_is_unexpected() -> None:
    others = [
        "[auth][error] AdapterError: database is locked",
        "[auth][error] CredentialsSignin: a refusal is a warning, not an error",
        "[auth][error] unexpected failure serving GET /auth/session\n"
        'Traceback (most recent call last):\n  File "/src/sansio_auth/x.py", line 1\nKeyError: 1',
        "ERROR:    Exception in ASGI application\nTraceback (most recent call last):",
        "[auth][warn][debug-enabled] Read more: https://warnings.authjs.dev",
        'Traceback (most recent call last):\n  File "a.py", line 1\nRuntimeError: stray',
    ]
    for other in others:
        refusals, unexpected = classify(LOG + other + "\n")
        [entry] = unexpected
        assert entry.endswith(other), other
        assert sum(refusals.values()) >= 3


def test_a_refusal_is_its_line_and_its_own_traceback_only() -> None:
    line = "[auth][warn] CredentialsSignin: Read more"
    assert classify(line)[0] == {"CredentialsSignin": 1}
    stray = f"{line}\nTraceback (most recent call last):\n  File 'a.py'\nKeyError: 'x'"
    assert classify(stray) == ({}, [stray])
    after = f"{line}\nTask exception was never retrieved\nfuture: <Task finished>"
    assert classify(after) == ({"CredentialsSignin": 1}, after.splitlines()[1:])
