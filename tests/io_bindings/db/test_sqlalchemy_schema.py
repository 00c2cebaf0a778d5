"""The SQLAlchemy adapter's schema: the shipped Alembic revision makes what ``create_all`` makes
(autogenerate finds nothing to add, the reflected tables are the same, user ids
``AUTOINCREMENT`` on SQLite), on SQLite, PostgreSQL and MariaDB; a SQLite user table that
would give a deleted user's id again is refused."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import db_servers
import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.operations import Operations
from sqlalchemy import Engine, Integer, String, create_engine, inspect, text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from io_bindings.db.sqlalchemy import AuthModels, SQLAlchemyAdapter, UTCDateTime, models
from io_bindings.db.sqlalchemy import alembic_0001_auth_tables as revision
from tests.io_bindings.db.conftest import sqlalchemy_url

DATABASES = ["sqlite", pytest.param("postgres", marks=pytest.mark.e2e),
             pytest.param("mariadb", marks=pytest.mark.e2e)]  # fmt: skip


@pytest.fixture(params=DATABASES)
def engines(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Engine, Engine]]:
    """Two empty databases of one kind."""
    made = []
    for name in ("migrated", "created"):
        path = tmp_path_factory.mktemp(name)
        url = sqlalchemy_url(request.param, request, path)
        if request.param != "sqlite":  # the fixture gives one database per test: make another
            url = _another(request, url)
        made.append(create_engine(url))
    yield made[0], made[1]
    for engine in made:
        engine.dispose()


def _another(request: pytest.FixtureRequest, url: str) -> str:
    if url.startswith("postgresql"):
        server = request.getfixturevalue("postgres_server")
        dsn = server.create_database()
        request.addfinalizer(lambda: server.drop_database(dsn))
        return db_servers.sqlalchemy_url(dsn)
    server = request.getfixturevalue("mariadb")
    another = server.create_database()
    request.addfinalizer(lambda: server.drop_database(another))
    return str(another)


def migrate(engine: Engine, step: str = "upgrade") -> None:
    with engine.begin() as conn, Operations.context(MigrationContext.configure(conn)):
        getattr(revision, step)()


def shape(engine: Engine) -> dict[str, Any]:
    """What reflection sees of each table: columns (name, type, nullable), primary key,
    foreign keys, unique constraints and indexes."""
    seen = inspect(engine)
    tables = {}
    for table in sorted(seen.get_table_names()):
        uniques = {tuple(u["column_names"]) for u in seen.get_unique_constraints(table)}
        indexes = {(tuple(i["column_names"]), bool(i["unique"])) for i in seen.get_indexes(table)}
        tables[table] = {
            "columns": [
                (c["name"], str(c["type"]), c["nullable"]) for c in seen.get_columns(table)
            ],
            "primary key": seen.get_pk_constraint(table)["constrained_columns"],
            "foreign keys": sorted(
                (tuple(f["constrained_columns"]), f["referred_table"], f["options"].get("ondelete"))
                for f in seen.get_foreign_keys(table)
            ),
            "unique": uniques | {names for names, unique in indexes if unique},
            "indexes": {names for names, unique in indexes if not unique},
        }
        if engine.dialect.name == "sqlite":
            tables[table]["autoincrement"] = "AUTOINCREMENT" in _sqlite_schema(engine, table)
    return tables


def _sqlite_schema(engine: Engine, table: str) -> str:
    found = text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = :name")
    with engine.connect() as conn:
        return str(conn.execute(found, {"name": table}).scalar())


def test_the_revision_makes_what_create_all_makes(engines: tuple[Engine, Engine]) -> None:
    migrated, created = engines
    migrate(migrated)
    models.metadata.create_all(created)
    with migrated.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), models.metadata) == []
    assert shape(migrated) == shape(created)
    assert set(shape(migrated)) == {t.name for t in models.auth_tables}
    if migrated.dialect.name == "sqlite":  # else ids come from a sequence that never goes back
        assert shape(migrated)["users"]["autoincrement"]
    migrate(migrated, "downgrade")
    assert inspect(migrated).get_table_names() == []


def test_the_revision_is_a_revision_alembic_can_load(tmp_path: Path) -> None:
    from alembic.script import ScriptDirectory

    versions = tmp_path / "versions"
    versions.mkdir()
    source = Path(revision.__file__).read_text()
    (versions / "0001_auth.py").write_text(source)
    (tmp_path / "script.py.mako").write_text("")
    scripts = ScriptDirectory(str(tmp_path), version_locations=[str(versions)])
    assert scripts.get_current_head() == "sansio_auth_0001"


def test_a_sqlite_user_table_that_would_reuse_ids_is_refused(tmp_path: Path) -> None:
    class Base(DeclarativeBase):
        pass

    class Member(Base):
        __tablename__ = "members"
        id: Mapped[int] = mapped_column(Integer, primary_key=True)
        email: Mapped[str | None] = mapped_column(String(320), unique=True)
        email_verified: Mapped[datetime | None] = mapped_column(UTCDateTime)

    url = f"sqlite:///{tmp_path / 'app.db'}"
    adapter = SQLAlchemyAdapter(url, AuthModels(Base, user=Member), create_tables=True)
    with pytest.raises(ValueError, match="sqlite_autoincrement"):
        adapter.store.open()
    adapter.store.close()
