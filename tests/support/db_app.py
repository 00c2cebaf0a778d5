"""The app the database and e-mail e2e tests serve: database sessions, e-mail sign-in over SMTP.

Configured by the environment of the server process:

* ``E2E_DATABASE`` — ``sqlite:<path>``, ``redis://host:port/db?key_prefix=<prefix>``,
  ``sqlalchemy:<SQLAlchemy URL>``, a PostgreSQL DSN, or ``pgbouncer:<DSN>`` (PostgreSQL
  behind PgBouncer in transaction pooling mode: statements are not prepared);
* ``E2E_DB_TIMEOUT`` — how long the PostgreSQL or SQLAlchemy pool waits for a connection
  (default 10 s);
* ``E2E_SMTP_PORT`` — a plain SMTP server on 127.0.0.1 that takes the sign-in e-mails
  (:class:`io_bindings.email.SMTPSender`, no TLS);
* ``E2E_EMAIL_MAX_AGE`` — lifetime of a sign-in link in seconds (default 24 h);
* ``E2E_STRATEGY`` — ``jwt`` for JWT sessions (revocation off: the default), without the
  ``session`` callback (default: database sessions).

The ``session`` callback adds the user id and, on an update, the posted ``nickname``.
Every ``session`` event is appended (one JSON line) to ``E2E_EVENTS`` when it is set, and
every ``update_session`` write (its session token, one a line) to ``E2E_WRITES``.
"""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import parse_qs

from io_bindings.anyio import AuthApp
from io_bindings.db._base import StoreAdapter
from io_bindings.email import SMTPSender
from sansio_auth import AuthConfig, Callbacks, Events
from sansio_auth.providers import Email

SECRET = "db-e2e-secret-that-is-long-enough-0123456789"
FROM = "Shop <no-reply@shop.example>"


def adapter_for(database: str, timeout: float = 10.0) -> StoreAdapter:
    """The adapter for ``E2E_DATABASE`` (see the module's docstring)."""
    if database.startswith("sqlalchemy:"):
        from io_bindings.db.sqlalchemy import SQLAlchemyAdapter

        url = database.removeprefix("sqlalchemy:")
        connect = {"connect_timeout": max(1, int(timeout))} if "+psycopg" in url else {}
        return SQLAlchemyAdapter(url, pool_timeout=timeout, connect_args=connect)
    if database.startswith("sqlite:"):
        from io_bindings.db.sqlite import SQLiteAdapter

        return SQLiteAdapter(database.removeprefix("sqlite:"))
    if database.startswith("redis://"):
        from io_bindings.db.redis import RedisAdapter

        url, _, query = database.partition("?")
        prefix = parse_qs(query).get("key_prefix", [""])[0]
        return RedisAdapter(url, key_prefix=prefix)
    from io_bindings.db.postgres import PostgresAdapter

    if database.startswith("pgbouncer:"):
        return PostgresAdapter(database.removeprefix("pgbouncer:"), timeout=timeout, prepare=False)
    return PostgresAdapter(database, timeout=timeout)


def count_writes(adapter: StoreAdapter, path: str) -> StoreAdapter:
    """``adapter`` whose ``update_session`` also appends the session token to ``path``."""
    update = adapter.update_session

    def note(token: str) -> None:
        with open(path, "a") as file:
            file.write(f"{token}\n")

    async def update_session(session: dict[str, Any]) -> Any:
        note(session["session_token"])
        return await update(session)

    adapter.update_session = update_session  # type: ignore[method-assign]
    return adapter


def session_callback(
    session: dict[str, Any], user: dict[str, Any], trigger: str | None, new_session: Any
) -> dict[str, Any]:
    """Expose the user id; echo an updated ``nickname``."""
    nickname = None
    if trigger == "update" and isinstance(new_session, dict):
        nickname = new_session.get("nickname")
    return {**session, "user_id": user["id"], "nickname": nickname}


def record_session_event(session: Any, token: Any) -> None:
    """Append the ``session`` event (as JSON) to ``E2E_EVENTS``."""
    path = os.environ.get("E2E_EVENTS")
    if path:
        with open(path, "a") as file:
            file.write(json.dumps({"session": session, "token": token}, default=str) + "\n")


def make_config(
    database: str, smtp_port: int, email_max_age: int, db_timeout: float = 10.0
) -> AuthConfig:
    """Database sessions on ``database``; sign-in links through 127.0.0.1:``smtp_port``."""
    sender = SMTPSender("127.0.0.1", smtp_port, security="none", from_=FROM, timeout=10)
    adapter = adapter_for(database, db_timeout)
    if os.environ.get("E2E_WRITES"):
        adapter = count_writes(adapter, os.environ["E2E_WRITES"])
    if os.environ.get("E2E_STRATEGY") == "jwt":
        strategy = {"session": {"strategy": "jwt"}}
    else:
        strategy = {"callbacks": Callbacks(session=session_callback)}
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=adapter,
        providers=[Email(send_verification_request=sender, max_age=email_max_age)],
        events=Events(session=record_session_event),
        **strategy,  # type: ignore[arg-type]
    )


app = AuthApp(
    make_config(
        os.environ.get("E2E_DATABASE", "sqlite::memory:"),
        int(os.environ.get("E2E_SMTP_PORT", "25")),
        int(os.environ.get("E2E_EMAIL_MAX_AGE", str(24 * 60 * 60))),
        float(os.environ.get("E2E_DB_TIMEOUT", "10")),
    )
)
