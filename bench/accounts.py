"""Password accounts: session reads while passwords are hashed, and a TOTP check's cost.

Over HTTP: ``GET /auth/session`` (a valid cookie) on an app with a password provider
(argon2id, OWASP's parameters), alone and while a client signs in with a password
:data:`SIGN_INS_PER_SECOND` times a second (each sign-in: a CSRF token, then ``POST
callback/password`` with the right password, answered with a session), in alternating
rounds. The loaded figure's ratio is what the reads keep: hashing runs in worker threads,
off the event loop. The server is not pinned here (its hashing threads may use both cores,
as in production); the load generator is, as everywhere.

In process: checking a TOTP code as the challenge does: open the sealed secret, compare the
codes of the window's three steps.

``python -m bench.accounts [--seconds S] [--rounds N]`` runs only these.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from http.cookies import SimpleCookie
from typing import Any

from io_bindings.anyio import AuthApp
from io_bindings.db.memory import MemoryAdapter
from sansio_auth import AuthConfig, totp
from sansio_auth.passwords import OWASP, hash_password
from sansio_auth.testing import seeded_entropy
from sansio_auth.two_factor import open_secret, seal_secret

from .app import SECRET, USER, session_cookie
from .load import alternating, described, first_visit
from .plan import Plan
from .report import Figure, table
from .servers import running, uvicorn

SIGN_INS_PER_SECOND = 4
EMAIL, PASSWORD = "bench@example.com", "a bench passphrase"
SECTION = f"Session reads while passwords are hashed ({described()}; × = ÷ alone)"
IN_PROCESS = "Second factor, in process"


def create_password_app() -> AuthApp:
    """``uvicorn --factory bench.accounts:create_password_app``: JWT sessions, a password
    provider with OWASP's parameters, and one verified user (:data:`EMAIL`)."""
    from sansio_auth.providers import Password

    adapter = MemoryAdapter()
    store = adapter.store
    store.create_user({"id": "1", "email": EMAIL, "email_verified": None, "name": USER["name"]})
    store.passwords["1"] = hash_password(PASSWORD, b"bench-salt-16byt", OWASP)
    config = AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=adapter,
        providers=[Password(send_email=_message_sink, require_verified_email=False)],
        session={"strategy": "jwt"},
        # one account signs in 4 times a second from one address: the brute-force limits
        # would answer 429 from the eleventh sign-in on; this bench measures hashing
        rate_limits={"enabled": False},
    )
    return AuthApp(config, env={})


def _message_sink(identifier: str, message: Any) -> None:
    """A sender that drops the message (``send_email`` must take ``message``)."""


def _sign_in(base: str) -> bool:
    """One password sign-in as a browser makes it; whether it was answered with a session."""
    opener = urllib.request.build_opener(_NoRedirect)
    with opener.open(f"{base}/auth/csrf", timeout=30) as answer:
        token = json.loads(answer.read())["csrfToken"]
        jar = SimpleCookie()
        for line in answer.headers.get_all("set-cookie") or []:
            jar.load(line)
    form = urllib.parse.urlencode({"csrfToken": token, "email": EMAIL, "password": PASSWORD})
    request = urllib.request.Request(
        f"{base}/auth/callback/password",
        data=form.encode(),
        headers={"cookie": "; ".join(f"{k}={m.value}" for k, m in jar.items())},
    )
    try:
        opener.open(request, timeout=30)
    except urllib.error.HTTPError as redirect:
        cookies = redirect.headers.get_all("set-cookie") or []
        return redirect.code == 302 and any("session-token=" in c for c in cookies)
    return False


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any) -> None:
        return None


class SignInLoad:
    """Signs in :data:`SIGN_INS_PER_SECOND` times a second (each in its own thread, so a slow
    answer does not slow the pace) while running; counts the sign-ins that got a session."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.done = 0
        self.failed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._pool = ThreadPoolExecutor(max_workers=16)

    def __enter__(self) -> SignInLoad:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()
        self._pool.shutdown(wait=True)

    def _run(self) -> None:
        interval = 1 / SIGN_INS_PER_SECOND
        next_at = time.perf_counter()
        while not self._stop.is_set():
            self._pool.submit(self._one)
            next_at += interval
            self._stop.wait(max(0.0, next_at - time.perf_counter()))

    def _one(self) -> None:
        if _sign_in(self.base):
            self.done += 1
        else:
            self.failed += 1


def hashing_figures(plan: Plan) -> list[Figure]:
    """Session reads alone and under password sign-ins (same server, alternating rounds)."""
    server = uvicorn("bench.accounts:create_password_app", "httptools + uvloop", pin=False)
    with running({"app": server}) as urls:
        base = urls["app"]
        if not _sign_in(base):
            raise RuntimeError("the bench's password sign-in did not get a session")
        target = first_visit(
            f"{base}/auth/session",
            session_cookie(),
            lambda body: body["user"]["name"] == USER["name"],
            keep=True,
        )
        alone: list[float] = []
        loaded: list[float] = []
        signed_in = 0.0
        for _ in range(plan.rounds):
            alone += alternating({"alone": target}, plan.seconds, 1, warm_up=plan.warm_up)["alone"]
            with SignInLoad(base) as load:
                time.sleep(0.5)  # the pace is set
                start, before = time.perf_counter(), load.done
                loaded += alternating({"loaded": target}, plan.seconds, 1, warm_up=False)["loaded"]
                signed_in = max(signed_in, (load.done - before) / (time.perf_counter() - start))
            if load.failed:
                raise RuntimeError(f"{load.failed} password sign-ins failed under load")
    best = max(alone)
    return [
        Figure.best(SECTION, "GET /auth/session alone", "per second", alone, best),
        Figure.best(
            SECTION,
            f"GET /auth/session while {SIGN_INS_PER_SECOND} password sign-ins/s "
            f"({signed_in:.1f}/s done)",
            "per second",
            loaded,
            best,
        ),
    ]


def totp_checks_per_second(seconds: float) -> float:
    """TOTP code checks per second: open the sealed secret, compare the window's codes."""
    secrets_ = (SECRET,)
    secret = totp.new_secret(seeded_entropy(1)(20))
    sealed = seal_secret(secret, secrets_, b"\0" * 12)
    now = time.time()
    code = totp.totp(totp.secret_key(secret), now)
    count, start = 0, time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(500):
            key = totp.secret_key(open_secret(sealed, secrets_))
            if totp.accepted_step(key, code, now, last_step=None) is None:
                raise RuntimeError("the bench's TOTP code was refused")
        count += 500
    return count / (time.perf_counter() - start)


def totp_figures(seconds: float) -> list[Figure]:
    """The TOTP check in process (µs each in the table)."""
    rate = totp_checks_per_second(seconds)
    return [Figure(IN_PROCESS, "TOTP code check (sealed secret opened, 3 steps)", "per second",
                   rate)]  # fmt: skip


def main() -> None:
    """Run only these benchmarks and print their tables."""
    parser = argparse.ArgumentParser(prog="python -m bench.accounts", description=__doc__)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    plan = Plan(seconds=max(1, round(args.seconds)), rounds=args.rounds, warm_up=True)
    figures = totp_figures(args.seconds) + hashing_figures(plan)
    print(table(figures))


if __name__ == "__main__":
    main()
