"""The Django ORM store beyond the conformance suite: what it writes into Django's own tables
(the test project's user model is Django's ``auth.User``: its e-mail field is not unique,
it has no ``name``, ``image`` or ``email_verified``), its e-mail lock under a forced race,
inactive users, the user-field mapping, and times without ``USE_TZ``."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import django_db
import pytest
from django.conf import settings

if not settings.configured:  # the tests' one Django set-up, whichever module asks first
    django_db.configure()

from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from io_bindings.django.orm import _user_fields
from io_bindings.django.orm._passwords import DjangoHashers
from io_bindings.django.orm.models import Account, Session, UserProfile
from io_bindings.django.orm.store import DjangoAdapter, DjangoStore
from io_bindings.testing.adapter_suite import NOW, race
from sansio_auth.adapters import AdapterConflict
from sansio_auth.passwords import OWASP, Argon2Params, hash_password

pytestmark = pytest.mark.anyio
DATABASES = ["sqlite", pytest.param("postgres", marks=pytest.mark.e2e)]
User = get_user_model()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def orm_in_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests' own checks query the ORM from their coroutines (the adapter does not)."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "1")


@pytest.fixture(params=DATABASES)
def alias(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return django_db.fresh_database(request.param, request, tmp_path)


@pytest.fixture
async def adapter(alias: str) -> AsyncIterator[DjangoAdapter]:
    async with DjangoAdapter(alias) as opened:
        yield opened


def new_user(email: str | None = "ada@example.com", **extra: Any) -> dict[str, Any]:
    return {"id": "", "email": email, "email_verified": None, **extra}


async def test_users_are_django_users(adapter: DjangoAdapter, alias: str) -> None:
    created = await adapter.create_user(new_user(name="Ada Lovelace", email_verified=NOW))
    user = User.objects.using(alias).get(pk=int(created["id"]))
    assert user.username == "ada@example.com"  # the address is free as a username
    assert user.email == "ada@example.com"
    assert not user.has_usable_password()
    profile = UserProfile.objects.using(alias).get(user=user)
    assert (profile.name, profile.email_verified) == ("Ada Lovelace", NOW)
    link = {"user_id": created["id"], "type": "oauth", "provider": "github",
            "provider_account_id": "1"}  # fmt: skip
    await adapter.link_account(link)  # type: ignore[arg-type]
    assert [a.provider for a in user.auth_accounts.all()] == ["github"]
    # a username that is taken, and no address at all: a new UUID
    User.objects.using(alias).create(username="bob@example.com", email="other@example.com")
    bob = await adapter.create_user(new_user("bob@example.com"))
    nobody = await adapter.create_user(new_user(None))
    for made in (bob, nobody):
        username = User.objects.using(alias).get(pk=int(made["id"])).username
        assert len(username) == 32
        assert username.isalnum()
    assert nobody["email"] is None
    assert User.objects.using(alias).get(pk=int(nobody["id"])).email == ""
    assert not UserProfile.objects.using(alias).filter(user_id=int(nobody["id"])).exists()


async def test_deleting_a_user_deletes_what_it_owns(adapter: DjangoAdapter, alias: str) -> None:
    created = await adapter.create_user(new_user(name="Ada"))
    await adapter.create_session(
        {"session_token": "s", "user_id": created["id"], "expires": NOW + timedelta(days=1)}
    )
    User.objects.using(alias).filter(pk=int(created["id"])).delete()  # e.g. in the admin
    assert not Session.objects.using(alias).exists()
    assert not UserProfile.objects.using(alias).exists()
    assert await adapter.get_session_and_user("s") is None


async def test_inactive_users_have_no_live_session(adapter: DjangoAdapter, alias: str) -> None:
    created = await adapter.create_user(new_user())
    expires = NOW + timedelta(days=1)
    session = {"session_token": "s", "user_id": created["id"], "expires": expires}
    await adapter.create_session(session)  # type: ignore[arg-type]
    assert await adapter.get_session_and_user("s") is not None
    User.objects.using(alias).filter(pk=int(created["id"])).update(is_active=False)
    assert await adapter.get_session_and_user("s") is None
    assert await adapter.get_user(created["id"]) == created  # still there, for sign-in to refuse


@pytest.fixture
def slow_email_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every e-mail check takes 0.5 s more after it found the address free: racing sign-ups
    all look before any inserts, unless the lock keeps them apart (long enough for their
    threads to start on a loaded machine)."""
    check = DjangoStore._check_email_free

    def slow(self: DjangoStore, email: str | None, user_key: Any = None) -> None:
        check(self, email, user_key)
        time.sleep(0.5)

    monkeypatch.setattr(DjangoStore, "_check_email_free", slow)


async def sign_ups(adapter: DjangoAdapter) -> list[Any]:
    return await race(4, lambda i: adapter.create_user(new_user("race@example.com")))


@pytest.mark.usefixtures("slow_email_check")
async def test_a_forced_sign_up_race_on_a_non_unique_email_makes_one_user(
    adapter: DjangoAdapter, alias: str
) -> None:
    results = await sign_ups(adapter)
    assert len([r for r in results if isinstance(r, dict)]) == 1, results
    assert all(isinstance(r, AdapterConflict) for r in results if not isinstance(r, dict))
    assert User.objects.using(alias).filter(email="race@example.com").count() == 1


@pytest.mark.e2e
@pytest.mark.usefixtures("slow_email_check")
async def test_without_the_lock_the_forced_race_makes_several_users(
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """The race above is real: on PostgreSQL, without the advisory lock, it is lost."""
    monkeypatch.setattr(DjangoStore, "_lock_email", lambda self, email: None)
    alias = django_db.fresh_database("postgres", request, tmp_path)
    async with DjangoAdapter(alias) as adapter:
        await sign_ups(adapter)
    assert User.objects.using(alias).filter(email="race@example.com").count() > 1


def test_the_user_field_mapping_is_checked() -> None:
    with pytest.raises(ImproperlyConfigured, match="unknown keys"):
        _user_fields.UserFields(User, {"phone": "phone"})
    with pytest.raises(ImproperlyConfigured, match="has no field 'full_name'"):
        _user_fields.UserFields(User, {"name": "full_name"})
    with pytest.raises(ImproperlyConfigured, match="must be a DateTimeField"):
        _user_fields.UserFields(User, {"email_verified": "is_staff"})
    fields = _user_fields.UserFields(User, {"name": "first_name"})
    assert fields.on_user == {"name": "first_name"}
    assert fields.on_profile == ("email_verified", "image")
    assert fields.user_values({"name": "x" * 200})["first_name"] == "x" * 150  # its max_length


async def test_a_mapped_name_is_written_to_the_user(alias: str) -> None:
    async with DjangoAdapter(alias, user_fields={"name": "first_name"}) as adapter:
        created = await adapter.create_user(new_user(name="Ada"))
        assert User.objects.using(alias).get(pk=int(created["id"])).first_name == "Ada"
        updated = await adapter.update_user({"id": created["id"], "name": "Augusta"})
        assert updated["name"] == "Augusta"
        assert User.objects.using(alias).get(pk=int(created["id"])).first_name == "Augusta"


def test_times_without_use_tz_are_the_default_zone() -> None:
    with override_settings(USE_TZ=False, TIME_ZONE="Europe/Paris"):
        stored = _user_fields.to_db(datetime(2030, 1, 1, 12, tzinfo=UTC))
        assert stored == datetime(2030, 1, 1, 13)  # naive, Paris time
        assert _user_fields.from_db(stored) == datetime(2030, 1, 1, 12, tzinfo=UTC)


async def test_close_closes_the_connections_of_every_thread(alias: str) -> None:
    adapter = DjangoAdapter(alias)
    await race(3, lambda i: adapter.get_user_by_email(f"{i}@example.com"))

    def opened() -> list[Any]:
        return [c for c in adapter.store._used if c.connection]

    assert opened()
    await adapter.aclose()
    assert not opened()
    assert Account.objects.using(alias).count() == 0  # this thread's own connection still works


def test_the_migrations_make_every_model() -> None:
    """The migrations make what the models say: no further migration is needed."""
    from django.core.management import call_command

    call_command("makemigrations", "sansio_auth_orm", check=True, dry_run=True, verbosity=0)


def test_the_password_migration_moves_the_tables_hashes_into_the_user_model(
    alias: str,
) -> None:
    """Migration 0002: the store's own hashes become ``user.password`` (argon2id in Django's
    format), a usable Django password is kept; backwards, the table is filled again."""
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", "sansio_auth_orm", "0001", database=alias, verbosity=0)
    ada = User.objects.db_manager(alias).create_user("ada", "ada@example.com", None)
    bob = User.objects.db_manager(alias).create_user("bob", "bob@example.com", "django pw")
    engine_hash = hash_password(
        "ada's passphrase", b"0123456789abcdef", Argon2Params(memory_cost=8, time_cost=1)
    )
    with connections[alias].cursor() as cursor:
        for user, stored in ((ada, engine_hash), (bob, engine_hash)):
            cursor.execute(
                "INSERT INTO sansio_auth_user_password (user_id, hash) VALUES (%s, %s)",
                [user.pk, stored],
            )
    call_command("migrate", "sansio_auth_orm", database=alias, verbosity=0)
    ada.refresh_from_db()
    bob.refresh_from_db()
    assert ada.password == "argon2" + engine_hash  # Django's Argon2PasswordHasher reads it
    assert DjangoHashers().verify("ada's passphrase", ada.password, OWASP).valid
    assert bob.check_password("django pw")  # Django's own password stays
    call_command("migrate", "sansio_auth_orm", "0001", database=alias, verbosity=0)
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT user_id, hash FROM sansio_auth_user_password ORDER BY user_id")
        assert cursor.fetchall() == [(ada.pk, ada.password), (bob.pk, bob.password)]
    call_command("migrate", "sansio_auth_orm", database=alias, verbosity=0)


def test_no_hash_costs_one_hash_of_the_preferred_hasher(monkeypatch: pytest.MonkeyPatch) -> None:
    """An unknown address (no hash) or an unusable password does Django's dummy work, a hash
    of the first of ``PASSWORD_HASHERS``, and is not valid."""
    from django.contrib.auth import hashers

    made: list[str] = []
    real = hashers.make_password
    monkeypatch.setattr(hashers, "make_password", lambda *a, **k: made.append("x") or real(*a, **k))
    for stored in (None, hashers.make_password(None)):
        made.clear()
        assert DjangoHashers().verify("a guess", stored, OWASP).valid is False
        assert made == ["x"]
