"""Record real sign-ins through ``python -m io_bindings.record``.

``python -m tests.recordings.make`` re-makes the shipped recordings (``oidc.jsonl``,
``email.jsonl`` and ``recorded.json``) against the real test OP and a real SMTP inbox;
the tests call :func:`record_oidc` and :func:`record_email` to record afresh.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx
from live_server import LiveServer, csrf_token, free_port, serve
from mail_server import MailServer, mail_server, sign_in_link

from tests.oidc_op.provider import OpenIDProvider, start_openid_provider
from tests.recordings.apps import HERE

ADDRESS = "reader@example.com"


@contextmanager
def recording_server(
    app: str, out: Path, env: Mapping[str, str], port: int | None = None, *options: str
) -> Iterator[LiveServer]:
    """``python -m io_bindings.record`` serving ``tests.recordings.apps:<app>`` into ``out``
    (with more command-line ``options``)."""
    port = port or free_port()
    command = [sys.executable, "-m", "io_bindings.record", "--config",
               f"tests.recordings.apps:{app}", "--out", str(out), "--port", str(port),
               *options]  # fmt: skip
    with serve(command, port, env=env) as server:
        yield server


def record_oidc(out: Path, op: OpenIDProvider) -> dict[str, str]:
    """Sign in with ``op`` (csrf, sign-in, OP login, callback, session); the settings used."""
    port = free_port()
    client = op.register_client([f"http://127.0.0.1:{port}/auth/callback/op"])
    env = {"RECORDING_ISSUER": op.issuer, "RECORDING_CLIENT_ID": client.client_id,
           "RECORDING_CLIENT_SECRET": client.client_secret or ""}  # fmt: skip
    with (
        recording_server("oidc", out, env, port) as server,
        httpx.Client(base_url=server.url) as app,
    ):
        start = app.post("/auth/signin/op", data={"csrfToken": csrf_token(app)})
        assert start.status_code == 302, start.text
        with httpx.Client() as op_browser:
            answer = op.login(op_browser, start.headers["location"])
        callback = answer.send(app)
        assert callback.status_code == 302, callback.text
        assert app.get("/auth/session").json()["user"]["email"] == op.account.email
    return {"issuer": op.issuer, "client_id": client.client_id}


def record_email(out: Path, mail: MailServer, *options: str) -> None:
    """Sign in by e-mail (csrf, sign-in, the link from the inbox, session)."""
    env = {"RECORDING_SMTP_PORT": str(mail.port)}
    with (
        recording_server("email", out, env, None, *options) as server,
        httpx.Client(base_url=server.url) as app,
    ):
        start = app.post(
            "/auth/signin/email", data={"csrfToken": csrf_token(app), "email": ADDRESS}
        )
        assert start.status_code == 302, start.text
        link = sign_in_link(mail.inbox.next_for(ADDRESS))
        callback = app.get(link)
        assert callback.status_code == 302, callback.text
        assert app.get("/auth/session").json()["user"]["email"] == ADDRESS


def main() -> None:
    for name in ("oidc.jsonl", "email.jsonl"):
        (HERE / name).unlink(missing_ok=True)
    with start_openid_provider() as op:
        settings = record_oidc(HERE / "oidc.jsonl", op)
    with mail_server() as mail:
        record_email(HERE / "email.jsonl", mail)
    (HERE / "recorded.json").write_text(json.dumps(settings, indent=2) + "\n")


if __name__ == "__main__":
    main()
