"""The Python peers over HTTP: a signed-in ``GET /me`` (a protected FastAPI endpoint that
answers the user's e-mail) on the same server (uvicorn, httptools + uvloop, core 0) for
ours and for the libraries a FastAPI user would otherwise pick (:mod:`bench.peer_apps`).

Each contender signs in for real first (ours and PyJWT with a password, the Authlib recipe
through the local OpenID Provider, fastapi-users with its login route; our database session
is seeded through the adapter, as its sign-in stores it), and must answer 401 signed out
and with its session cookie tampered, 200 with the user's e-mail signed in, before it is
timed. The cookie sent is everything the browser holds after that sign-in.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable, Collection, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx
from live_server import free_port

from io_bindings.db.sqlite import SQLiteAdapter

from .app import USER
from .database import SESSION_COOKIE_HEADER, seed_once
from .goals import Goal, goals_table, ratio
from .load import Target, alternating, described
from .peer_apps import PASSWORD, PROTECTED, missing_peers
from .plan import Plan
from .report import Figure, table
from .servers import running, uvicorn

STACK = "httptools + uvloop"
OURS = "ours: FastAPI + HostAuth, require_session (JWT)"
OURS_MIDDLEWARE = "ours: FastAPI + HostAuth, middleware + require_session (JWT)"
OURS_DB = "ours: FastAPI + HostAuth, require_session (database sessions, SQLite)"
RECIPE = "Starlette SessionMiddleware + Authlib (OIDC sign-in)"
PYJWT = "hand-written PyJWT HS256 cookie"
FU_JWT = "fastapi-users (cookie + JWT strategy, SQLite users)"
FU_DB = "fastapi-users (cookie + database strategy, SQLite)"
DECRYPT = "a dependency that decrypts our cookie on every request"
BARE = "the same endpoint without auth (the floor)"


@dataclass(frozen=True)
class Contender:
    """A row: its app factory, environment, session cookie name and sign-in."""

    factory: str
    cookie_name: str | None
    sign_in: Callable[[httpx.Client, str], None]
    env: tuple[tuple[str, str], ...] = ()
    email: str = USER["email"]


def _credentials(http: httpx.Client, url: str) -> None:
    csrf = http.get(f"{url}/api/auth/csrf").json()["csrfToken"]
    form = {"csrfToken": csrf, "username": USER["email"], "password": PASSWORD}
    http.post(f"{url}/api/auth/callback/credentials", data=form)


def _seeded(http: httpx.Client, url: str) -> None:
    name, value = SESSION_COOKIE_HEADER.split("=", 1)
    http.cookies.set(name, value)


def _password(path: str, user_field: str = "username") -> Callable[[httpx.Client, str], None]:
    def sign_in(http: httpx.Client, url: str) -> None:
        http.post(f"{url}{path}", data={user_field: USER["email"], "password": PASSWORD})

    return sign_in


def _through_op(op: object) -> Callable[[httpx.Client, str], None]:
    def sign_in(http: httpx.Client, url: str) -> None:
        start = http.get(f"{url}/login")
        answer = op.login(http, start.headers["location"])  # type: ignore[attr-defined]
        answer.send(http)

    return sign_in


def _tampered(value: str) -> str:
    middle = len(value) // 2
    return value[:middle] + ("A" if value[middle] != "A" else "B") + value[middle + 1 :]


def _checked(url: str, http: httpx.Client, cookie_name: str | None, email: str) -> str:
    """The ``Cookie`` header the browser holds, after checking the answers: 401 signed out
    and tampered, 200 with the user's e-mail signed in."""
    jar = {cookie.name: cookie.value for cookie in http.cookies.jar}
    header = "; ".join(f"{name}={value}" for name, value in jar.items())
    answer = httpx.get(url + PROTECTED, headers={"cookie": header})
    if answer.status_code != 200 or answer.json() != {"email": email}:
        raise RuntimeError(f"{url}: not signed in: {answer.status_code} {answer.text[:200]}")
    if cookie_name is None:
        return header
    if jar.get(cookie_name) is None:
        raise RuntimeError(f"{url}: the sign-in set no {cookie_name} cookie: {sorted(jar)}")
    tampered = {**jar, cookie_name: _tampered(str(jar[cookie_name]))}
    for name, cookies in (("signed out", {}), ("tampered", tampered)):
        sent = "; ".join(f"{k}={v}" for k, v in cookies.items())
        answer = httpx.get(url + PROTECTED, headers={"cookie": sent} if sent else {})
        if answer.status_code != 401:
            raise RuntimeError(f"{url}: {name}, answered {answer.status_code}, not 401")
    return header


@contextmanager
def _contenders() -> Iterator[tuple[dict[str, Contender], dict[str, int]]]:
    """The contenders (the OP started, the SQLite files made) and the fixed ports."""
    from tests.oidc_op.provider import start_openid_provider

    with ExitStack() as stack:
        directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-peers-")))
        ours_db = str(directory / "ours.db")
        anyio.run(seed_once, SQLiteAdapter(ours_db))
        recipe_port = free_port()
        op = stack.enter_context(
            start_openid_provider([f"http://127.0.0.1:{recipe_port}/auth/callback/op"])
        )
        client = op.client("client_secret_post")
        recipe_env = (("BENCH_OP_ISSUER", op.issuer), ("BENCH_OP_CLIENT_ID", client.client_id),
                      ("BENCH_OP_CLIENT_SECRET", client.client_secret or ""),
                      ("AUTHLIB_INSECURE_TRANSPORT", "1"))  # fmt: skip
        jwe = "authjs.session-token"
        contenders = {
            OURS: Contender("bench.peer_apps:create_ours", jwe, _credentials),
            OURS_MIDDLEWARE: Contender("bench.peer_apps:create_ours", jwe, _credentials,
                                       (("BENCH_MIDDLEWARE", "1"),)),
            OURS_DB: Contender("bench.peer_apps:create_ours", jwe, _seeded,
                               (("BENCH_SQLITE", ours_db),)),
            RECIPE: Contender("bench.peer_apps:create_recipe", "session", _through_op(op),
                              recipe_env, op.account.email),
            PYJWT: Contender("bench.peer_apps:create_pyjwt", "token", _password("/login")),
            FU_JWT: Contender("bench.peer_apps:create_fastapi_users", "fastapiusersauth",
                              _password("/auth/login"),
                              (("BENCH_SQLITE", str(directory / "fu-jwt.db")),)),
            FU_DB: Contender("bench.peer_apps:create_fastapi_users", "fastapiusersauth",
                             _password("/auth/login"),
                             (("BENCH_SQLITE", str(directory / "fu-db.db")),
                              ("BENCH_STRATEGY", "database"))),
            DECRYPT: Contender("bench.peer_apps:create_decrypt", jwe, _credentials),
            BARE: Contender("bench.peer_apps:create_bare", None, _credentials),
        }  # fmt: skip
        yield contenders, {RECIPE: recipe_port}


def section(plan: Plan) -> str:
    """The title of these figures' table."""
    return (
        f"Python peers: signed-in GET /me (FastAPI, uvicorn {STACK}) per second, server on "
        f"core 0, {described()} on core 1, {plan.describe()} (× = this ÷ ours (JWT))"
    )


@contextmanager
def signed_in_targets(rows: Collection[str] | None = None) -> Iterator[dict[str, Target]]:
    """Every contender's server (of ``rows``, default all) running, signed in and checked
    (401 signed out and tampered, 200 signed in): the target to load, by row."""
    with _contenders() as (everyone, ports):
        chosen = set(everyone if rows is None else rows)
        if chosen & {DECRYPT, BARE}:  # they read ours's cookie: ours signs in
            chosen.add(OURS)
        contenders = {name: c for name, c in everyone.items() if name in chosen}
        servers = {
            name: uvicorn(c.factory, STACK, env=dict(c.env), port=ports.get(name))
            for name, c in contenders.items()
        }
        with running(servers) as urls:
            targets = {}
            for name, contender in contenders.items():
                url = urls[name]
                signed_in_at = urls[OURS] if name in (DECRYPT, BARE) else url
                with httpx.Client(timeout=30) as http:
                    contender.sign_in(http, signed_in_at)
                    cookie = _checked(url, http, contender.cookie_name, contender.email)
                targets[name] = Target(url + PROTECTED, cookie)
            yield targets


def peer_figures(
    plan: Plan, rows: Collection[str] | None = None
) -> tuple[list[Figure], list[Goal]]:
    """Every contender (of ``rows``) signed in, checked, then measured in alternating rounds."""
    with signed_in_targets(rows) as targets:
        rates = alternating(targets, plan.seconds, plan.rounds, warm_up=plan.warm_up)
    best = {name: max(rounds) for name, rounds in rates.items()}
    title = section(plan)
    figures = [Figure.best(title, name, "per second", rates[name], best[OURS]) for name in targets]
    goals = [
        Goal("FastAPI + HostAuth (middleware) ÷ SessionMiddleware + Authlib",
             ratio(best, OURS_MIDDLEWARE, RECIPE), 1.0),
        Goal("FastAPI + HostAuth ÷ SessionMiddleware + Authlib", ratio(best, OURS, RECIPE), 1.3),
        Goal("FastAPI + HostAuth ÷ fastapi-users (JWT)", ratio(best, OURS, FU_JWT), 5),
        Goal("database sessions (SQLite) ÷ fastapi-users (database)",
             ratio(best, OURS_DB, FU_DB), 5),
    ]  # fmt: skip
    return figures, goals


ROWS = {"ours": OURS, "ours-middleware": OURS_MIDDLEWARE, "ours-database": OURS_DB,
        "recipe": RECIPE, "pyjwt": PYJWT, "fastapi-users-jwt": FU_JWT,
        "fastapi-users-database": FU_DB, "decrypt": DECRYPT, "bare": BARE}  # fmt: skip
"""The rows by short name, for ``--rows``."""
NEEDS = {RECIPE: ("authlib", "itsdangerous"), PYJWT: ("jwt",),
         FU_JWT: ("fastapi_users", "fastapi_users_db_sqlalchemy", "aiosqlite"),
         FU_DB: ("fastapi_users", "fastapi_users_db_sqlalchemy", "aiosqlite")}  # fmt: skip
"""What each peer's row imports (the ``bench`` extra)."""


def main(argv: list[str] | None = None) -> None:
    """``python -m bench.python_peers [--seconds S] [--rounds N] [--rows NAME...]``: this
    section alone (the rows named, default all), each round's figures and, for ours, its
    ratio to the recipe's in the same round (the spread the machine's load leaves)."""
    parser = argparse.ArgumentParser(prog="python -m bench.python_peers", description=main.__doc__)
    parser.add_argument("--seconds", type=int, default=1, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=10, help="alternating rounds")
    parser.add_argument("--rows", nargs="+", choices=sorted(ROWS), default=sorted(ROWS))
    args = parser.parse_args(argv)
    rows = [ROWS[name] for name in args.rows]
    needed = tuple(module for row in rows for module in NEEDS.get(row, ()))
    if (missing := missing_peers(needed)) is not None:
        parser.error(missing)
    plan = Plan(seconds=args.seconds, rounds=args.rounds, warm_up=True)
    figures, goals = peer_figures(plan, rows)
    print(table(figures), flush=True)
    rounds = {figure.row: figure.rounds for figure in figures}
    for ours in (OURS, OURS_MIDDLEWARE):
        if ours in rounds and RECIPE in rounds:
            each = sorted(a / b for a, b in zip(rounds[ours], rounds[RECIPE], strict=True))
            print(f"{ours} ÷ recipe, round by round: {' '.join(f'{r:.2f}' for r in each)} "
                  f"(median {each[len(each) // 2]:.2f})")  # fmt: skip
    print(goals_table(goal for goal in goals if goal.measured is not None), flush=True)


if __name__ == "__main__":
    main()
