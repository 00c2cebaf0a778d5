"""The SQLAlchemy adapter with the application's own models: a user model with a UUID id,
extra columns and a renamed attribute, other table names. The conformance suite passes on
them (SQLite, PostgreSQL, MariaDB; asyncio and trio), the extra columns come back in the
user records, and bad mappings are refused when the models are made."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

import pytest
from sqlalchemy import String, inspect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from io_bindings.db.sqlalchemy import AuthModels, Key, SQLAlchemyAdapter, UTCDateTime
from io_bindings.testing.adapter_suite import AdapterSuite
from tests.io_bindings.db.conftest import sqlalchemy_url

DATABASES = ["sqlite", pytest.param("postgres", marks=pytest.mark.e2e),
             pytest.param("mariadb", marks=pytest.mark.e2e)]  # fmt: skip
TABLES = {"accounts": "app_accounts", "sessions": "app_sessions", "authenticators": "passkeys"}


def app_models() -> AuthModels:
    """An application's models, as its own code would declare them (a fresh Base each time)."""

    class Base(DeclarativeBase):
        pass

    class Member(Base):
        __tablename__ = "members"
        id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
        email: Mapped[str | None] = mapped_column(Key(320), unique=True)
        verified_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
        name: Mapped[str | None] = mapped_column(String(100))
        image: Mapped[str | None] = mapped_column(String(500))
        plan: Mapped[str] = mapped_column(String(20), default="free")
        nickname: Mapped[str | None] = mapped_column(String(50))

    return AuthModels(
        Base, user=Member, tables=TABLES, user_fields={"email_verified": "verified_at"}
    )


@pytest.fixture(params=DATABASES)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return sqlalchemy_url(request.param, request, tmp_path)


class TestAppModels(AdapterSuite):
    user_defaults: ClassVar[dict[str, Any]] = {"plan": "free", "nickname": None}

    @pytest.fixture
    async def adapter(self, database: str) -> AsyncIterator[SQLAlchemyAdapter]:
        async with SQLAlchemyAdapter(database, app_models(), create_tables=True) as adapter:
            yield adapter


@pytest.mark.anyio
async def test_extra_columns_come_back_and_take_their_keys(database: str) -> None:
    auth = app_models()
    async with SQLAlchemyAdapter(database, auth, create_tables=True) as db:
        user = await db.create_user(
            {"id": "", "email": "ada@example.com", "email_verified": None, "nickname": "ada"}  # type: ignore[typeddict-unknown-key]
        )
        assert uuid.UUID(user["id"])
        assert user == {"id": user["id"], "email": "ada@example.com", "email_verified": None,
                        "name": None, "image": None, "plan": "free", "nickname": "ada"}  # fmt: skip
        updated = await db.update_user({"id": user["id"], "plan": "pro", "shoe_size": 44})  # type: ignore[typeddict-unknown-key]
        assert updated == {**user, "plan": "pro"}  # keys that name no column are dropped
        assert await db.get_user(user["id"]) == updated
        names = set(inspect(db.engine).get_table_names())
    assert names == {"members", "app_accounts", "app_sessions", "verification_token",
                     "passkeys", "session_revocations", "rate_limit_counters", "session_records",
                     "user_passwords", "user_two_factors"}  # fmt: skip
    assert auth.Account.__table__.c.userId.references(auth.User.__table__.c.id)


def test_a_user_model_without_the_required_attributes_is_refused() -> None:
    class Base(DeclarativeBase):
        pass

    class Person(Base):
        __tablename__ = "people"
        id: Mapped[int] = mapped_column(primary_key=True)
        email: Mapped[str] = mapped_column(String(255))

    with pytest.raises(ValueError, match="no attribute 'email_verified'"):
        AuthModels(Base, user=Person)
    with pytest.raises(ValueError, match="unknown tables"):
        AuthModels(Base, user=Person, tables={"acounts": "x"})
    with pytest.raises(ValueError, match="pass your user model"):
        AuthModels(Base)


@pytest.mark.anyio
async def test_missing_tables_are_named_once_with_the_fix(
    database: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Opening on a database with only some of the tables logs which are missing (your
    table names) and how to make them, once; with them all, nothing."""
    models = app_models()
    adapter = SQLAlchemyAdapter(database, models)
    models.metadata.create_all(adapter.engine, tables=[models.users])
    try:
        with caplog.at_level("ERROR", logger="sansio_auth"):
            await adapter.open()
            await adapter.get_user(str(uuid.uuid4()))
        missing = [r.getMessage() for r in caplog.records if "has no table" in r.getMessage()]
        assert len(missing) == 1, missing
        assert "app_accounts, app_sessions" in missing[0]
        assert "members" not in missing[0].partition("has no table")[2]
        assert "create_tables=True" in missing[0]
        assert "alembic_0001_auth_tables.py" in missing[0]
        caplog.clear()
        models.metadata.create_all(adapter.engine)
        async with SQLAlchemyAdapter(database, models) as complete:
            await complete.get_user(str(uuid.uuid4()))
        assert "has no table" not in caplog.text
    finally:
        models.metadata.drop_all(adapter.engine)
        await adapter.aclose()
