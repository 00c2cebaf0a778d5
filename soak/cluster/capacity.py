"""The capacity model's inputs, measured (``python -m soak.cluster.capacity``):

* **round trips per request type**: each request of the fleet app's two configurations
  (database sessions; revocable JWT sessions), served by the engine in memory (the testing
  kit's OP and browser), with every adapter call counted and sorted by the store it goes to
  in the fleet (PostgreSQL, or Redis for the revocation marks, the single flight and the
  rate-limit counters);
* **what one PostgreSQL and one Redis serve**: ``pgbench`` running our session check (the
  join of ``sessions`` and ``users`` by token, prepared) and its extension, ``redis-benchmark``
  running a JWT session's revocation check (one ``MGET``), on this machine;
* **what one core of app serves**: the fleet app on one uvicorn worker pinned to a core, the
  load generator on the other (:mod:`bench.load`), a session read of each site.

docs/deployment.md turns them into the sizing of a fleet.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from db_servers import find_program, postgres_cluster, redis_instance

from io_bindings.db.memory import MemoryAdapter
from io_bindings.db.postgres import PostgresAdapter
from sansio_auth import AuthConfig
from sansio_auth.events import CallAdapter
from sansio_auth.testing import Browser, MemoryOP

REDIS_METHODS = frozenset(
    {
        "get_sessions_not_before",
        "set_sessions_not_before",
        "claim_refresh",
        "await_refresh",
        "finish_refresh",
        "increment_counter",
    }
)
"""What the fleet keeps in Redis; every other adapter method goes to PostgreSQL."""
SESSIONS = 100_000
CLIENTS = 16


class Flights:
    """A single-flight store in one process (for counting only)."""

    def __init__(self) -> None:
        self.answers: dict[str, bytes] = {}

    def claim_refresh(self, key: str, owner: str, lease: float) -> tuple[bool, bytes | None]:
        return (key not in self.answers), self.answers.get(key)

    def await_refresh(self, key: str, wait: float) -> bytes | None:
        return self.answers.get(key)

    def finish_refresh(self, key: str, owner: str, answer: bytes | None, keep: float) -> None:
        if answer is None:
            self.answers.pop(key, None)
        else:
            self.answers[key] = answer


def _config(op: MemoryOP, strategy: str) -> AuthConfig:
    session: dict[str, Any] = {"strategy": strategy, "update_age": 600}
    if strategy == "jwt":
        session |= {"revocation": True, "revocation_cache_ttl": 0}
    return AuthConfig(
        secret="capacity-model-secret-0123456789abcdef",  # noqa: S106 (counting only)
        trust_host=True,
        adapter=MemoryAdapter(),
        session=session,
        providers=[op.provider(backchannel_logout=True)],
        single_flight=Flights(),
    )


def _counted(browser: Browser, action: Any) -> str:
    """The adapter calls ``action()`` made, as ``"PostgreSQL n + Redis m (methods)"``."""
    browser.performer.clear()
    action()
    calls = Counter(a.method for a in browser.performer.actions if isinstance(a, CallAdapter))
    postgres = sum(n for m, n in calls.items() if m not in REDIS_METHODS)
    redis = sum(n for m, n in calls.items() if m in REDIS_METHODS)
    names = ", ".join(f"{m} x{n}" if n > 1 else m for m, n in sorted(calls.items()))
    return f"PostgreSQL {postgres} + Redis {redis}" + (f" ({names})" if names else "")


def _logout_token(op: MemoryOP, browser: Browser, strategy: str) -> str:
    sub = "alice-sub"
    claims = {
        "iss": op.issuer,
        "aud": op.client_id,
        "iat": int(browser.clock.now),
        "jti": f"jti-{strategy}-{browser.clock.now}",
        "sub": sub,
        "sid": "op-session",
        "events": {"http://schemas.openid.net/event/backchannel-logout": {}},
    }
    return op.sign(claims, {"alg": "RS256", "kid": op.signing_kid, "typ": "logout+jwt"})


def _requests(browser: Browser) -> dict[str, Callable[[], object]]:
    """Each request type, as a step of one browser's life (a second browser of the same user
    signs in as a returning user)."""
    other = browser.another()

    def later(seconds: float) -> Callable[[], object]:
        def read() -> object:
            browser.advance(seconds)
            return browser.session()

        return read

    return {
        "OIDC sign-in, first (sign-up)": lambda: browser.sign_in("op"),
        "OIDC sign-in, returning user": lambda: other.sign_in("op"),
        "session read": browser.session,
        "session read after update_age": later(601),
        "session read, refresh due": later(3600),
        "sign-out": browser.sign_out,
        "sign out everywhere": lambda: browser.performer.run(
            browser.engine.revoke_sessions(user_id="1")
        ),
    }


def round_trips() -> dict[str, dict[str, str]]:
    """Request type → strategy → the store round trips it costs."""
    table: dict[str, dict[str, str]] = {}
    for strategy in ("database", "jwt"):
        op = MemoryOP()
        op.metadata["backchannel_logout_supported"] = True
        op.claims["sid"] = "op-session"  # the provider session, in the ID token
        browser = Browser(_config(op, strategy), op=op)
        for name, action in _requests(browser).items():
            table.setdefault(name, {})[strategy] = _counted(browser, action)
        browser.sign_in("op")
        form = {"logout_token": _logout_token(op, browser, strategy)}
        path = f"{browser.base}/backchannel-logout/op"
        table.setdefault("back-channel logout", {})[strategy] = _counted(
            browser, partial(browser.post, path, form=form)
        )
    return table


def _pgbench(dsn: str, script: str, seconds: int) -> float:
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as file:
        file.write(script)
    command = [find_program("pgbench"), "-n", "-M", "prepared", "-c", str(CLIENTS), "-j", "2"]
    command += ["-T", str(seconds), "-f", file.name, dsn]
    done = subprocess.run(command, capture_output=True, text=True, check=True)  # noqa: S603
    Path(file.name).unlink()
    found = re.search(r"tps = ([\d.]+)", done.stdout)
    if found is None:
        raise RuntimeError(f"no tps in pgbench's output:\n{done.stdout}{done.stderr}")
    return float(found.group(1))


async def _schema(dsn: str) -> None:
    adapter = PostgresAdapter(dsn)
    await adapter.get_user("0")
    await adapter.aclose()


def postgres_rates(seconds: int = 10) -> dict[str, float]:
    """Transactions per second of one PostgreSQL: the session check and its extension.
    (The statements are constants of this module: nothing in them comes from outside.)"""
    import psycopg

    with postgres_cluster() as postgres:
        dsn = postgres.create_database()
        anyio.run(_schema, dsn)
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(
                "INSERT INTO users (name, email) SELECT 'user ' || n, 'user' || n || '@example.com'"
                " FROM generate_series(1, %s) n",
                (SESSIONS // 2,),
            )
            conn.execute(
                'INSERT INTO sessions ("userId", expires, "sessionToken") SELECT '
                "1 + n %% %s, now() + interval '30 days', 'token-' || n "
                "FROM generate_series(1, %s) n",
                (SESSIONS // 2, SESSIONS),
            )
            conn.execute("VACUUM ANALYZE")
        pick = f"\\set n random(1, {SESSIONS})\n"
        read = (
            pick  # noqa: S608 (constants)
            + 'SELECT s."sessionToken", s."userId", s.expires, u.id, u.name, u.email, '
            'u."emailVerified", u.image FROM sessions s JOIN users u ON u.id = s."userId" '
            "WHERE s.\"sessionToken\" = 'token-' || :n;\n"
        )
        accounts = pick + 'SELECT * FROM accounts WHERE "userId" = :n;\n'  # noqa: S608
        extend = (
            pick  # noqa: S608 (constants)
            + "UPDATE sessions SET expires = now() + interval '30 days' "
            "WHERE \"sessionToken\" = 'token-' || :n RETURNING *;\n"
        )
        return {
            "session check (join by token)": _pgbench(dsn, read, seconds),
            "accounts of a user (refresh check)": _pgbench(dsn, accounts, seconds),
            "session extension (update_age)": _pgbench(dsn, extend, seconds),
        }


def redis_rates(requests: int = 200_000) -> dict[str, float]:
    """Requests per second of one Redis: a JWT session's revocation check (``MGET`` of its
    user's, sid's and provider session's marks) and a rate-limit or single-flight script."""
    program = shutil.which("redis-benchmark")
    if program is None:
        raise RuntimeError("redis-benchmark is not installed (Debian's redis-tools)")
    with redis_instance() as redis:
        base = [program, "-p", str(redis.port), "-n", str(requests), "-c", "32", "-q"]
        checks = {
            "revocation check (MGET of 3 marks)": [
                "MGET", "jwt:revocation:user:1", "jwt:revocation:sid:x", "jwt:revocation:op:op:y",
            ],
            "single-flight claim (EVAL)": [
                "EVAL", "if redis.call('GET', KEYS[2]) then return 0 end "
                "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', 20000) and 1 or 0",
                "2", "flight:lease:__rand_int__", "flight:answer:__rand_int__", "owner",
            ],
        }  # fmt: skip
        rates = {}
        for name, command in checks.items():
            out = subprocess.run(  # noqa: S603
                [*base, "-r", "100000", *command], capture_output=True, text=True, check=True
            ).stdout
            found = re.findall(r"([\d.]+) requests per second", out.replace("\r", "\n"))
            if not found:
                raise RuntimeError(f"no rate in redis-benchmark's output:\n{out}")
            rates[name] = float(found[-1])
        return rates


def core_rates(seconds: float = 3, rounds: int = 3) -> dict[str, float]:
    """Session reads per second of the fleet app on one worker pinned to one core (the load
    generator on the other), each of a fresh sign-in whose access token is not due."""
    from bench.servers import SERVER_CORE

    from .fleet import FleetOptions, running_fleet
    from .throughput import session_reads

    with running_fleet(FleetOptions(nodes=1, workers=1)) as fleet:
        [node] = fleet.nodes
        pin = ["taskset", "-pc", str(SERVER_CORE)]
        for pid in node.pids():
            subprocess.run([*pin, str(pid)], check=True, capture_output=True)  # noqa: S603
        rates = session_reads(fleet, {"one core": node.url}, seconds, rounds, pin=True)
    return {key.replace(" one core", " session read"): rate for key, rate in rates.items()}


def main() -> None:
    started = time.monotonic()
    print(f"capacity model inputs, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    print("store round trips per request (the fleet app's configurations):")
    for name, by_strategy in round_trips().items():
        for strategy, counted in by_strategy.items():
            print(f"  {name:34} {strategy:9} {counted}")
    print(f"one PostgreSQL (pgbench, {CLIENTS} clients, prepared, {SESSIONS} sessions):")
    for name, rate in postgres_rates().items():
        print(f"  {name:40} {rate:9.0f} per second")
    print("one Redis (redis-benchmark, 32 clients, no pipelining):")
    for name, rate in redis_rates().items():
        print(f"  {name:40} {rate:9.0f} per second")
    print("one core of app (one uvicorn worker pinned, the load generator on the other core):")
    for name, rate in core_rates().items():
        print(f"  {name:40} {rate:9.0f} per second")
    print(f"({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
