"""The SQLAlchemy adapter's session check on asyncio with psycopg: the statement run on the
driver's connection gives what SQLAlchemy's own execution gives (custom column types
included), leaves no transaction open, and is not used where the engine has execution
events or echo."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import pytest
from sqlalchemy import String, TypeDecorator, event, text
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from io_bindings.db.sqlalchemy import AuthModels, Key, SQLAlchemyAdapter, UTCDateTime
from io_bindings.db.sqlalchemy._asyncio import DriverQuery
from tests.io_bindings.db.conftest import sqlalchemy_url

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Shouting(TypeDecorator[str]):
    """A custom type: stored as given, read back upper-case."""

    impl = String(100)
    cache_ok = True

    def process_result_value(self, value: str | None, dialect: Dialect) -> str | None:
        return None if value is None else value.upper()


def models() -> AuthModels:
    class Base(DeclarativeBase):
        pass

    class Member(Base):
        __tablename__ = "members"
        id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
        email: Mapped[str | None] = mapped_column(Key(320), unique=True)
        email_verified: Mapped[datetime | None] = mapped_column(UTCDateTime)
        name: Mapped[str | None] = mapped_column(Shouting)

    return AuthModels(Base, user=Member)


@pytest.fixture
async def adapter(request: pytest.FixtureRequest, tmp_path: Any) -> AsyncIterator[Any]:
    url = sqlalchemy_url("postgres", request, tmp_path)
    async with SQLAlchemyAdapter(url, models(), create_tables=True) as adapter:
        user = await adapter.create_user(
            {"id": "", "email": "ada@example.com", "email_verified": None, "name": "Ada"}
        )
        expires = datetime.now(UTC) + timedelta(days=1)
        session = {"session_token": "s", "user_id": user["id"], "expires": expires}
        await adapter.create_session(session)
        yield adapter


async def test_the_driver_path_reads_as_sqlalchemy_does(adapter: Any) -> None:
    found = await adapter.get_session_and_user("s")
    sessions = adapter._asyncio_sessions()
    assert sessions.direct is not None  # psycopg, no events: the driver's connection
    assert found["user"]["name"] == "ADA"  # the custom type's result processing
    assert found["session"]["expires"].tzinfo is UTC  # UTCDateTime's
    async with sessions.engine.connect() as conn:
        row = (await conn.execute(adapter.store.session_check, {"token": "s"})).first()
    assert await sessions.direct.first({"token": "s"}) == tuple(row)
    assert await adapter.get_session_and_user("nope") is None
    raw = await sessions.engine.raw_connection()
    try:
        assert raw.driver_connection.info.transaction_status == 0  # idle: no transaction left
    finally:
        raw.close()


async def test_engines_with_execution_events_or_echo_keep_sqlalchemys_path(adapter: Any) -> None:
    url = adapter.engine.url
    plain = create_async_engine(url)
    echoing = create_async_engine(url, echo=True)
    traced = create_async_engine(url)
    seen: list[str] = []
    event.listen(traced.sync_engine, "before_cursor_execute", lambda *a: seen.append(a[2]))
    try:
        assert DriverQuery.suits(plain)
        assert not DriverQuery.suits(echoing)
        assert not DriverQuery.suits(traced)
        mine = SQLAlchemyAdapter(adapter.engine, adapter.models, async_engine=traced)
        async with mine:
            assert (await mine.get_session_and_user("s"))["user"]["name"] == "ADA"
            assert mine._asyncio_sessions().direct is None
        assert any("sessionToken" in statement for statement in seen)  # the event saw it
    finally:
        for engine in (plain, echoing, traced):
            await engine.dispose()


async def test_reads_go_on_after_the_server_closes_their_connections(adapter: Any) -> None:
    for _ in range(3):  # a few connections kept between reads
        assert (await adapter.get_session_and_user("s"))["user"]["name"] == "ADA"
    others = "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
    async with adapter._asyncio_sessions().engine.connect() as conn:
        await conn.execute(text(f"SELECT pg_terminate_backend(pid) {others}"))
        for _ in range(100):  # until they are gone, as after a restart
            if not (await conn.execute(text(f"SELECT count(*) {others}"))).scalar():
                break
            await anyio.sleep(0.05)
    for _ in range(3):
        assert (await adapter.get_session_and_user("s"))["user"]["name"] == "ADA"


async def test_reads_on_connections_that_prepare_nothing(adapter: Any) -> None:
    url = adapter.engine.url
    unprepared = create_async_engine(url, connect_args={"prepare_threshold": None}, pool_size=1)
    async with SQLAlchemyAdapter(url, adapter.models, async_engine=unprepared) as mine:
        assert mine._asyncio_sessions().direct is not None
        for _ in range(3):
            found = await mine.get_session_and_user("s")
            assert found["user"]["email"] == "ada@example.com"
        assert await mine.get_session_and_user("other") is None
    await unprepared.dispose()


@pytest.mark.parametrize("reset", ["DISCARD ALL", "DEALLOCATE ALL"])
async def test_reads_go_on_after_the_engines_other_users_drop_prepared_statements(
    adapter: Any, reset: str, caplog: pytest.LogCaptureFixture
) -> None:
    """On an engine the adapter was given, the app's own code (or a pooler's reset) may drop
    the read's prepared statement from a connection: the next read prepares it again; the
    connection goes back to the pool as SQLAlchemy's own reset expects (nothing logged)."""
    caplog.set_level(logging.WARNING)
    given = create_async_engine(adapter.engine.url, pool_size=1, max_overflow=0)
    async with SQLAlchemyAdapter(adapter.engine.url, adapter.models, async_engine=given) as mine:
        assert mine._asyncio_sessions().direct is not None
        assert (await mine.get_session_and_user("s"))["user"]["name"] == "ADA"
        async with given.connect() as conn:  # the pool's one connection, the read's too
            autocommit = await conn.execution_options(isolation_level="AUTOCOMMIT")
            prepared = "SELECT count(*) FROM pg_prepared_statements"
            assert (await autocommit.exec_driver_sql(prepared)).scalar() == 1
            await autocommit.exec_driver_sql(reset)
        for _ in range(2):
            assert (await mine.get_session_and_user("s"))["user"]["name"] == "ADA"
    await given.dispose()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
