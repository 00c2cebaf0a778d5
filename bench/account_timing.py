"""Whether answer times tell that an account exists: the password sign-in and forgot-password
of known and unknown addresses through a real server, timed.

A SQLite store holds two users: one with an argon2id hash (OWASP's parameters, as new
passwords get), one imported from Django (``pbkdf2_sha256``, 1,000,000 iterations). Each
round asks, in a random order: a wrong password for each of them and for an unknown
address, and forgot-password for a known and for an unknown address. Each request is timed
alone (its CSRF token fetched first, untimed); the table gives the median of each kind and
its ratio to the unknown address's. Rate limits are off; the sender drops the e-mails.

``python bench/account_timing.py [--rounds N] [--server uvicorn|wsgi] [--code DIR]``:
``--code`` serves the library found in ``DIR`` (another checkout, to compare).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SECRET = "account-timing-secret-that-is-long-enough-0123"
ARGON, DJANGO, UNKNOWN = "argon@example.com", "django@example.com", "nobody@example.com"
PASSWORD = "the users' own passphrase"
ITERATIONS = 1_000_000


def django_pbkdf2(password: str, salt: str = "importedsalt", iterations: int = ITERATIONS) -> str:
    """A hash as Django's ``PBKDF2PasswordHasher`` writes it."""
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), iterations)
    return f"pbkdf2_sha256${iterations}${salt}${base64.b64encode(digest).decode()}"


def _config(database: str) -> Any:
    from io_bindings.db.sqlite import SQLiteAdapter
    from sansio_auth import AuthConfig
    from sansio_auth.providers import Password

    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=SQLiteAdapter(database),
        providers=[Password(send_email=_drop, require_verified_email=False)],
        session={"strategy": "jwt"},
        rate_limits={"enabled": False},
    )


def _drop(identifier: str, message: Any) -> None:
    """A sender that drops the message."""


def create_app() -> Any:
    """``uvicorn --factory account_timing:create_app`` (the database: ``TIMING_DB``)."""
    from io_bindings.anyio import AuthApp

    return AuthApp(_config(os.environ["TIMING_DB"]), env={})


def wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
    """The same app under the sync runtime (made at the first request)."""
    global _wsgi_app
    if _wsgi_app is None:
        from io_bindings.wsgi import AuthWSGI

        _wsgi_app = AuthWSGI(_config(os.environ["TIMING_DB"]), env={})
    return _wsgi_app(environ, start_response)


_wsgi_app: Any = None


def seed(database: str) -> None:
    """The two users and their hashes."""
    import anyio

    from io_bindings.db.sqlite import SQLiteAdapter
    from sansio_auth.passwords import OWASP, hash_password

    async def users() -> None:
        adapter = SQLiteAdapter(database)
        async with adapter:
            for user_id, email, hashed in (
                ("argon", ARGON, hash_password(PASSWORD, os.urandom(16), OWASP)),
                ("django", DJANGO, django_pbkdf2(PASSWORD)),
            ):
                await adapter.create_user({"id": user_id, "email": email, "email_verified": None})
                await adapter.set_password_hash(user_id, hashed)

    anyio.run(users)


PROBES = {
    "wrong password, argon2id account": ("callback/password", ARGON),
    "wrong password, Django pbkdf2 account": ("callback/password", DJANGO),
    "wrong password, unknown address": ("callback/password", UNKNOWN),
    "forgot-password, known address": ("forgot-password", ARGON),
    "forgot-password, unknown address": ("forgot-password", UNKNOWN),
}
"""What each round asks: the route and the address."""


def measure(base: str, rounds: int) -> dict[str, list[float]]:
    """Seconds each probe took, ``rounds`` times, interleaved in a random order."""
    import httpx

    taken: dict[str, list[float]] = {name: [] for name in PROBES}
    with httpx.Client(base_url=base, timeout=60) as client:
        for _ in range(3):  # warm up: connections, the dummy hash, the store's pages
            for route, email in PROBES.values():
                _ask(client, route, email)
        for _ in range(rounds):
            order = list(PROBES)
            random.shuffle(order)
            for name in order:
                taken[name].append(_ask(client, *PROBES[name]))
    return taken


def _ask(client: Any, route: str, email: str) -> float:
    token = client.get("/auth/csrf").json()["csrfToken"]
    form = {"csrfToken": token, "email": email, "password": "not the password"}
    began = time.perf_counter()
    answer = client.post(f"/auth/{route}", data=form)
    took = time.perf_counter() - began
    assert answer.status_code == 302, (route, answer.status_code, answer.text[:200])
    return took


def report(taken: dict[str, list[float]]) -> str:
    """The medians, and each one's ratio to the unknown address's of its route."""
    medians = {name: statistics.median(times) for name, times in taken.items()}
    lines = [f"{'probe':<42} {'median ms':>10} {'× unknown':>10}"]
    for name, median in medians.items():
        route = PROBES[name][0]
        unknown = next(m for n, m in medians.items() if PROBES[n] == (route, UNKNOWN))
        lines.append(f"{name:<42} {median * 1000:>10.1f} {median / unknown:>10.2f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--server", choices=("uvicorn", "wsgi"), default="uvicorn")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout to serve")
    args = parser.parse_args()
    code = args.code.resolve()
    sys.path[:0] = [str(code), str(ROOT / "tests" / "support")]
    from live_server import free_port, serve

    with tempfile.TemporaryDirectory() as scratch:
        database = str(Path(scratch) / "timing.db")
        seed(database)
        port = free_port()
        here = str(Path(__file__).resolve().parent)
        if args.server == "uvicorn":
            command = [sys.executable, "-m", "uvicorn", "--factory", "account_timing:create_app",
                       "--host", "127.0.0.1", "--port", str(port), "--no-access-log",
                       "--log-level", "warning"]  # fmt: skip
        else:
            support = ROOT / "tests" / "support"
            command = [sys.executable, str(support / "wsgi_server.py"), "account_timing:wsgi",
                       str(port)]  # fmt: skip
        path = os.pathsep.join((str(code), here, str(ROOT / "tests" / "support")))
        env = {"TIMING_DB": database, "PYTHONPATH": path}
        with serve(command, port, env=env, cwd=code) as live:
            taken = measure(live.url, args.rounds)
    print(f"{args.server}, {args.rounds} rounds, code from {code}")
    print(report(taken))


if __name__ == "__main__":
    main()
