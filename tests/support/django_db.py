"""Django for the tests in this process: configured once, and databases made per test.

:func:`configure` sets Django up the same way whichever test module asks first: with the
project of ``DJANGO_SETTINGS_MODULE`` when set (the custom user model's run, see
``tests/io_bindings/django/test_orm_custom_user.py``), else with :data:`TEST_SETTINGS`
(Django's own ``auth.User``). The ORM store's tests each get an empty, migrated database of
their own under a new alias of ``connections``: a copy of a template migrated once (a SQLite
file copied, a PostgreSQL database made ``WITH TEMPLATE``).
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest
    from db_servers import PostgresServer

TEST_SETTINGS: dict[str, Any] = {
    "INSTALLED_APPS": [
        "django.contrib.admin",
        "django.contrib.auth",
        "django.contrib.contenttypes",
        "django.contrib.messages",
        "django.contrib.sessions",
        "io_bindings.django",
        "io_bindings.django.orm",
    ],
    "TEMPLATES": [
        {
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "APP_DIRS": True,
            "OPTIONS": {
                "context_processors": [
                    "django.template.context_processors.request",
                    "django.contrib.auth.context_processors.auth",
                    "django.contrib.messages.context_processors.messages",
                ]
            },
        }
    ],
    "DATABASES": {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
    "USE_TZ": True,
    "DEFAULT_AUTO_FIELD": "django.db.models.BigAutoField",
    "PASSWORD_HASHERS": ["django.contrib.auth.hashers.MD5PasswordHasher"],  # fast, tests only
}


def configure() -> None:
    """Set Django up for this process (once; later calls do nothing)."""
    import django
    from django.conf import settings

    if settings.configured:
        return
    if not os.environ.get("DJANGO_SETTINGS_MODULE"):
        settings.configure(**TEST_SETTINGS)
    django.setup()


def add_database(config: dict[str, Any]) -> str:
    """A new alias of ``connections`` for the database ``config`` (``ENGINE``, ``NAME``, ...)."""
    from django.db import connections

    alias = f"test_{uuid.uuid4().hex[:12]}"
    connections.settings[alias] = connections.configure_settings({"default": dict(config)})[
        "default"
    ]
    return alias


def remove_database(alias: str) -> None:
    """Forget ``alias`` (this thread's connection to it closed)."""
    from django.db import connections

    if hasattr(connections._connections, alias):
        connections[alias].close()
        del connections[alias]
    del connections.settings[alias]


@contextmanager
def as_default(alias: str) -> Iterator[None]:
    """``default`` is the database of ``alias`` for a while (what Django itself reads there:
    permissions, sessions, the admin's log), each thread's connection made anew."""
    from django.db import connections

    def forget_default() -> None:
        if hasattr(connections._connections, "default"):
            connections["default"].close()
            del connections["default"]

    saved = connections.settings["default"]
    forget_default()
    connections.settings["default"] = {**connections.settings[alias], "CONN_MAX_AGE": 0}
    try:
        yield
    finally:
        forget_default()
        connections.settings["default"] = saved


def migrate(alias: str) -> None:
    """Run every migration of the installed apps on ``alias``."""
    from django.core.management import call_command

    call_command("migrate", database=alias, verbosity=0, interactive=False)


def sqlite(path: Path | str) -> dict[str, Any]:
    """The ``DATABASES`` entry of a SQLite file (connections kept, as in production)."""
    return {"ENGINE": "django.db.backends.sqlite3", "NAME": str(path), "CONN_MAX_AGE": None}


def postgres(dsn: str) -> dict[str, Any]:
    """The ``DATABASES`` entry of a PostgreSQL database of the tests' server (a libpq DSN)."""
    part = dict(item.split("=", 1) for item in dsn.split())
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": part["dbname"],
        "USER": part["user"],
        "HOST": part["host"],
        "PORT": part["port"],
        "CONN_MAX_AGE": None,
    }


@contextmanager
def migrated(config: dict[str, Any]) -> Iterator[str]:
    """An alias of the database ``config``, migrated, removed afterwards."""
    alias = add_database(config)
    try:
        migrate(alias)
        yield alias
    finally:
        remove_database(alias)


def sqlite_template(directory: Path) -> Path:
    """A migrated SQLite file in ``directory``, to copy."""
    path = directory / "template.sqlite3"
    with migrated(sqlite(path)):
        pass
    return path


def sqlite_copy(template: Path, directory: Path) -> dict[str, Any]:
    """The ``DATABASES`` entry of a fresh copy of ``template`` in ``directory``."""
    path = directory / f"auth-{uuid.uuid4().hex[:8]}.sqlite3"
    shutil.copyfile(template, path)
    return sqlite(path)


def postgres_template(server: PostgresServer) -> str:
    """A migrated PostgreSQL database (nobody connected to it), to copy; its name."""
    dsn = server.create_database()
    with migrated(postgres(dsn)):
        pass
    return dsn.rpartition("dbname=")[2]


def postgres_copy(server: PostgresServer, template: str) -> str:
    """The DSN of a new database of ``server`` made from ``template``."""
    import psycopg

    name = f"t_{uuid.uuid4().hex}"
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'.encode())
    return server.dsn(name)


def fresh_database(database: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The alias of a new migrated database of ``database`` (``"sqlite"``, ``"postgres"``) for
    the test of ``request``, dropped after it (the templates are the session fixtures
    ``django_sqlite_template`` and ``django_postgres_template``)."""
    if database == "sqlite":
        config = sqlite_copy(request.getfixturevalue("django_sqlite_template"), tmp_path)
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        dsn = postgres_copy(server, request.getfixturevalue("django_postgres_template"))
        request.addfinalizer(lambda: server.drop_database(dsn))
        config = postgres(dsn)
    alias = add_database(config)
    request.addfinalizer(lambda: remove_database(alias))
    return alias
