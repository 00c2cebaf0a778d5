"""A Flask app with the auth routes mounted by ``io_bindings.wsgi.AuthWSGI``.

Credentials (ann / pw), e-mail links over SMTP (``E2E_SMTP_PORT``, in-memory adapter),
and the test OP when ``E2E_OP_ISSUER``, ``E2E_OP_CLIENT_ID`` and ``E2E_OP_CLIENT_SECRET``
are set. ``/`` says who is signed in; ``/private`` is 401 without a session.
"""

from __future__ import annotations

import os
from typing import Any

from flask import Flask, request

from io_bindings.db.memory import MemoryAdapter
from io_bindings.email import SMTPSender
from io_bindings.wsgi import AuthWSGI
from sansio_auth import AuthConfig
from sansio_auth.providers import Credentials, Email

SECRET = "flask-e2e-secret-that-is-long-enough-0123456789"


def authorize(credentials: dict[str, Any]) -> dict[str, str] | None:
    if credentials.get("username") == "ann" and credentials.get("password") == "pw":
        return {"id": "ann", "name": "Ann", "email": "ann@example.com"}
    return None


def providers() -> list[Any]:
    sender = SMTPSender("127.0.0.1", int(os.environ.get("E2E_SMTP_PORT", "25")), security="none",
                        from_="App <app@example.com>", timeout=10)  # fmt: skip
    found: list[Any] = [Credentials(authorize=authorize), Email(send_verification_request=sender)]
    if os.environ.get("E2E_OP_ISSUER"):
        found.append({"id": "op", "name": "Test OP", "type": "oidc",
                      "issuer": os.environ["E2E_OP_ISSUER"],
                      "client_id": os.environ["E2E_OP_CLIENT_ID"],
                      "client_secret": os.environ["E2E_OP_CLIENT_SECRET"],
                      "checks": ["pkce", "state", "nonce"]})  # fmt: skip
    return found


app = Flask(__name__)
auth = AuthWSGI(
    AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=MemoryAdapter(),
        session={"strategy": "jwt"},
        providers=providers(),
    ),
    app.wsgi_app,
)
app.wsgi_app = auth  # type: ignore[method-assign]


@app.get("/")
def home() -> str:
    session = auth.session(request.environ).data
    return f"signed in as {session['user']['email']}" if session else "anonymous"


@app.get("/private")
def private() -> tuple[str, int]:
    session = auth.session(request.environ).data
    return ("secret page", 200) if session else ("sign in first", 401)
