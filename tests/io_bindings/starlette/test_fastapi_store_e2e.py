"""FastAPI with a store under uvicorn (``host_auth_store_app``): what a developer meets in
the first hour.

* The session names its stored user (``user.id``) and ``Depends(current_user)`` gives that
  user as the store keeps it; "sign out everywhere" with it ends the user's sessions: on
  SQLAlchemy (SQLite), our SQLite store and Redis, JWT and database sessions.
* Handlers mounted away from ``base_path`` answer 404, and the log says why and how to fix
  it, once.
* SQLAlchemy without its tables: the log names the fix once.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from live_server import LiveServer, free_port, serve, uvicorn_command

pytestmark = pytest.mark.e2e
EMAIL, PASSWORD = "ada@example.com", "a long enough password 1"
MISSING = "has no table users, accounts, sessions"


@contextmanager
def site(database: str, **env: str) -> Iterator[LiveServer]:
    port = free_port()
    command = uvicorn_command("host_auth_store_app:app", port)
    with serve(command, port, env={"E2E_DATABASE": database, **env}) as live:
        yield live


def database_of(store: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if store == "sqlalchemy":
        return f"sqlalchemy:sqlite:///{tmp_path / 'auth.db'}"
    if store == "sqlite":
        return f"sqlite:{tmp_path / 'auth.db'}"
    return f"{request.getfixturevalue('redis_url')}?key_prefix=e2e:{uuid.uuid4().hex}:"


def sign_in(http: httpx.Client, base: str = "/api/auth") -> None:
    token = http.get(f"{base}/csrf").json()["csrfToken"]
    form = {"csrfToken": token, "email": EMAIL, "password": PASSWORD}
    answer = http.post(f"{base}/callback/password", data=form)
    assert answer.status_code == 302, answer.text
    assert "error" not in answer.headers["location"], answer.headers["location"]


@pytest.mark.parametrize("strategy", ["jwt", "database"])
@pytest.mark.parametrize("store", ["sqlalchemy", "sqlite", "redis"])
def test_the_stored_user_and_signing_out_everywhere(
    store: str, strategy: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    database = database_of(store, tmp_path, request)
    with site(database, E2E_STRATEGY=strategy) as live:
        with (
            httpx.Client(base_url=live.url, timeout=15) as http,
            httpx.Client(base_url=live.url, timeout=15) as other,
        ):
            user = http.post("/seed").json()
            assert http.get("/me").status_code == 401
            sign_in(http)
            sign_in(other)  # a second browser
            assert http.get("/api/auth/session").json()["user"]["id"] == user["id"]
            kind = "User" if store == "sqlalchemy" else "record"
            assert http.get("/me").json() == {"kind": kind, "id": user["id"], "email": EMAIL}
            deleted = http.post("/sign-out-everywhere").json()["deleted"]
            assert deleted == (2 if strategy == "database" else 0)  # JWTs: refused from now
            for browser in (http, other):
                assert browser.get("/api/auth/session").json() is None
                assert browser.get("/me").status_code == 401
        log = live.log
    assert "Traceback" not in log, log


def test_handlers_mounted_away_from_the_base_path_are_reported_once(tmp_path: Path) -> None:
    with site(f"sqlite:{tmp_path / 'auth.db'}", E2E_MOUNT="/auth") as live:
        with httpx.Client(base_url=live.url, timeout=15) as http:
            for _ in range(3):
                assert http.get("/auth/session").status_code == 404  # mounted, not served
                assert http.get("/api/auth/session").status_code == 404  # served, not mounted
        log = live.log
    mounted = "the auth handlers are mounted at /auth, but base_path is /api/auth"
    assert log.count(mounted) == 1, log
    assert 'app.mount("/api/auth", handlers)' in log
    assert 'AuthConfig(base_path="...")' in log
    unserved = "/api/auth/session is under base_path /api/auth, but the auth handlers never saw"
    assert log.count(unserved) == 1, log


def test_handlers_at_the_base_path_log_no_such_warning(tmp_path: Path) -> None:
    with site(f"sqlite:{tmp_path / 'auth.db'}") as live:
        with httpx.Client(base_url=live.url, timeout=15) as http:
            assert http.get("/api/auth/session").status_code == 200
            assert http.get("/api/auth/nope").status_code == 400
            assert http.get("/nowhere").status_code == 404
        log = live.log
    assert "base_path is" not in log, log
    assert "is under base_path" not in log, log


def test_sqlalchemy_without_its_tables_names_the_fix_once(tmp_path: Path) -> None:
    database = f"sqlalchemy:sqlite:///{tmp_path / 'auth.db'}"
    with site(database, E2E_TABLES="none") as live:
        with httpx.Client(base_url=live.url, timeout=15) as http:
            http.cookies.set("authjs.session-token", "a-session")
            for _ in range(3):
                assert http.get("/api/auth/session").json() is None
            token = http.get("/api/auth/csrf").json()["csrfToken"]
            form = {"csrfToken": token, "email": EMAIL, "password": PASSWORD}
            answer = http.post("/api/auth/callback/password", data=form)
            assert "error=" in answer.headers["location"]
        log = live.log
    assert log.count(MISSING) == 1, log
    for fix in ("create_all(adapter.engine)", "create_tables=True", "alembic_0001_auth_tables"):
        assert fix in log, fix


def test_sqlalchemy_with_its_tables_says_nothing_of_them(tmp_path: Path) -> None:
    with site(f"sqlalchemy:sqlite:///{tmp_path / 'auth.db'}") as live:
        with httpx.Client(base_url=live.url, timeout=15) as http:
            http.post("/seed")
            sign_in(http)
        log = live.log
    assert "has no table" not in log, log
