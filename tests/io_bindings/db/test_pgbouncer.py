"""PostgreSQL behind PgBouncer in transaction pooling mode (Debian's ``pgbouncer``, two server
connections per database): the whole conformance suite runs there too (adapter kind
``pgbouncer``, ``prepare=False``); these tests show why the option exists and that many
clients share the few server connections."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import anyio
import psycopg
import pytest

from io_bindings.db.postgres import PostgresAdapter

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def busy(adapter: PostgresAdapter, rounds: int = 30) -> list[BaseException]:
    """Many concurrent calls of different statements; the errors they met."""
    failures: list[BaseException] = []

    async def one(n: int) -> None:
        try:
            user = await adapter.create_user(
                {"id": "", "email": f"{uuid.uuid4().hex}@x.test", "email_verified": None}
            )
            assert await adapter.get_user(user["id"]) == user
            assert await adapter.get_user_by_email(user["email"]) == user
            assert (await adapter.increment_counter(f"k{n % 3}", 60, _now()))[0] >= 1
        except Exception as err:
            failures.append(err)

    async with anyio.create_task_group() as group:
        for n in range(rounds):
            group.start_soon(one, n)
    return failures


def _now() -> datetime:
    return datetime.now(UTC)


async def test_unprepared_statements_work_for_many_clients_on_two_connections(
    pgbouncer_dsn: str,
) -> None:
    async with PostgresAdapter(pgbouncer_dsn, prepare=False, max_size=10) as adapter:
        assert await busy(adapter) == []


async def test_prepared_statements_collide_behind_transaction_pooling(pgbouncer_dsn: str) -> None:
    """What ``prepare=False`` avoids: a statement prepared on one server connection is
    missing on the next, and two clients' statements of one name collide."""
    async with PostgresAdapter(pgbouncer_dsn, prepare=True, max_size=10) as adapter:
        failures = await busy(adapter)
    assert any(isinstance(f, psycopg.Error) and "prepared statement" in str(f) for f in failures)
