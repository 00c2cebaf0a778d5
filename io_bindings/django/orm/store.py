"""The Django ORM store: users in ``settings.AUTH_USER_MODEL``, the rest in this app's tables.

>>> from io_bindings.django.orm import DjangoAdapter
>>> config = AuthConfig(adapter=DjangoAdapter(), providers=[...])

Add ``io_bindings.django.orm`` to ``INSTALLED_APPS`` and run ``manage.py migrate``. Each adapter
method is one transaction on the database alias ``using`` (``"default"``), run with the
ORM in anyio worker threads, so the adapter works on asyncio and trio, under ASGI and WSGI.
Each worker thread keeps its own Django connection, and opens and closes it by the
project's ``DATABASES`` settings as Django does around a request (``CONN_MAX_AGE``,
``CONN_HEALTH_CHECKS``, PostgreSQL's ``"pool"`` option). Write transactions on SQLite take
the write lock when they begin (``BEGIN IMMEDIATE``), so concurrent writers wait instead of
failing. New users get an unusable password, and, when the model's username is not its
e-mail address, the e-mail address as username (a new UUID when it is taken or missing).
Passwords (the ``Password`` provider's) are Django's: ``user.password``, made and checked by
Django's hashers (:mod:`._passwords`).

When the user model's e-mail field is not unique (Django's own ``User``), a new user or a
changed address is checked against the others under a lock on that address (a PostgreSQL
advisory lock; SQLite's write lock), so of racing first sign-ups with one address exactly one
makes a user; on other databases, make the field unique. See ``docs/databases/django.md``.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from django.contrib.auth import get_user_model
from django.db import connections
from django.db.models import F, Max

from sansio_auth.adapters import AdapterConflict

from ...db._accounts import AccountMethods
from ...db._base import (
    ACCOUNT_FIELDS,
    AUTHENTICATOR_FIELDS,
    PURGE_INTERVAL,
    Every,
    Record,
    StoreAdapter,
)
from ._accounts import SESSION_LOOKUPS, DjangoAccounts, device_values, session_record
from ._passwords import DjangoHashers
from ._transactions import Transactions, first_row
from ._user_fields import UserFields, from_db, to_db

T = TypeVar("T")


class DjangoStore(Transactions, DjangoAccounts):
    """The synchronous store behind :class:`DjangoAdapter`."""

    def __init__(self, using: str, user_fields: Mapping[str, str | None]) -> None:
        super().__init__(using)
        self._user_fields = dict(user_fields)
        self._users: UserFields | None = None
        self._purge = Every(PURGE_INTERVAL)

    @property
    def users(self) -> UserFields:
        """The user model as the store sees it (read on first use: the apps must be ready)."""
        if self._users is None:
            self._users = UserFields(get_user_model(), self._user_fields)
        return self._users

    def _models(self) -> Any:
        from . import models as auth_models  # the apps are ready by the time a store is used

        return auth_models

    def django_user(self, user_id: str) -> Any:
        """The model instance of the user ``user_id`` when it is active, else ``None`` (in the
        calling thread, on its connection: for ``request.user`` and Django's signals)."""
        users = self.users
        key = users.key(user_id)
        if key is None:
            return None
        try:
            user = users.model._default_manager.db_manager(self.using).get(pk=key)
        except users.model.DoesNotExist:
            return None
        return user if getattr(user, "is_active", True) else None

    def open(self) -> None:
        """Check the user model and that the database answers."""
        self.users  # noqa: B018 - resolved now, so a wrong mapping fails at start
        with self._connection() as conn:
            conn.ensure_connection()

    def _lock_email(self, email: str) -> None:
        """Hold a lock on ``email`` until the transaction ends, where the database's write
        lock does not already serialise writers (PostgreSQL: an advisory lock)."""
        conn = connections[self.using]
        if conn.vendor == "postgresql":
            digest = hashlib.blake2b(email.encode(), digest_size=8).digest()
            with conn.cursor() as cursor:
                key = int.from_bytes(digest, "big", signed=True)
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])

    def _check_email_free(self, email: str | None, user_key: Any = None) -> None:
        """Refuse an address another user has (only needed when the field is not unique)."""
        users = self.users
        if email is None or users.email_unique:
            return
        self._lock_email(email)
        others = self._objects(users.model).filter(**{users.email: email})
        if user_key is not None:
            others = others.exclude(pk=user_key)
        if others.exists():
            raise AdapterConflict(f"another user has the e-mail address {email!r}")

    # users

    def _user_query(self) -> Any:
        return self._objects(self.users.model).values_list(*self.users.lookups())

    def _get_user(self, **where: Any) -> Record | None:
        row = first_row(self._user_query().filter(**where).order_by("pk"))
        return None if row is None else self.users.record(row)

    def create_user(self, user: Record) -> Record:
        return self._write(lambda: self._insert_user(user))

    def _insert_user(self, user: Record) -> Record:
        users = self.users
        self._check_email_free(user["email"])
        values = users.user_values(user)
        key = users.new_key(user["id"])
        if key is not None:
            values[users.pk.attname] = key
        if users.username != users.email:
            values[users.username] = self._new_username(user["email"])
        created = users.model(**values)
        if hasattr(created, "set_unusable_password"):
            created.set_unusable_password()
        created.save(using=self.using, force_insert=True)
        profile = users.profile_values(user)
        if any(value is not None for value in profile.values()):
            self._objects(self._models().UserProfile).create(user_id=created.pk, **profile)
        found = self._get_user(pk=created.pk)
        assert found is not None
        return found

    def _new_username(self, email: str | None) -> str:
        """The e-mail address when no one has it as username and it fits, else a new UUID."""
        users = self.users
        field = users.model._meta.get_field(users.username)
        fits = email is not None and len(email) <= (getattr(field, "max_length", None) or 150)
        if fits and not self._objects(users.model).filter(**{users.username: email}).exists():
            return str(email)
        return uuid.uuid4().hex

    def get_user(self, user_id: str) -> Record | None:
        key = self.users.key(user_id)
        return None if key is None else self._read(lambda: self._get_user(pk=key))

    def get_user_by_email(self, email: str) -> Record | None:
        return self._read(lambda: self._get_user(**{self.users.email: email}))

    def get_user_by_account(self, provider: str, provider_account_id: str) -> Record | None:
        query = self._objects(self._models().Account).filter(
            provider=provider, provider_account_id=provider_account_id
        )
        row = self._read(lambda: first_row(query.values_list(*self.users.lookups("user__"))))
        return None if row is None else self.users.record(row)

    def update_user(self, update: Record) -> Record:
        key = self.users.key(update["id"])

        def work() -> Record:
            users = self.users
            found = self._objects(users.model).select_for_update().filter(pk=key)
            if key is None or not found.exists():
                raise LookupError(f"no user with id {update['id']!r}")
            if "email" in update:
                self._check_email_free(update["email"], key)
            values = users.user_values(update)
            if values:
                found.update(**values)
            profile = users.profile_values(update)
            if profile:
                self._objects(self._models().UserProfile).update_or_create(
                    user_id=key, defaults=profile
                )
            user = self._get_user(pk=key)
            assert user is not None
            return user

        return self._write(work)

    def delete_user(self, user_id: str) -> Record | None:
        key = self.users.key(user_id)
        if key is None:
            return None

        def work() -> Record | None:
            user = self._get_user(pk=key)
            if user is not None:  # Django deletes what refers to it (CASCADE)
                self._objects(self.users.model).filter(pk=key).delete()
                self._records(user_id=user_id).delete()  # no foreign key: by hand
            return user

        return self._write(work)

    # accounts

    def _owner(self, user_id: str) -> Any:
        key = self.users.key(user_id)
        if key is None:
            raise LookupError(f"no user with id {user_id!r}")
        return key

    def _accounts(self, **where: Any) -> Any:
        return self._objects(self._models().Account).filter(**where)

    def _account(self, **where: Any) -> Record | None:
        row = first_row(self._accounts(**where).values_list(*ACCOUNT_FIELDS))
        return None if row is None else self._account_record(row)

    @staticmethod
    def _account_record(row: Any) -> Record:
        record = dict(zip(ACCOUNT_FIELDS, row, strict=True))
        record["user_id"] = str(record["user_id"])
        return record

    def link_account(self, account: Record) -> Record:
        return self._write(lambda: self._insert_account(account))

    def _insert_account(self, account: Record) -> Record:
        values = {field: account[field] for field in ACCOUNT_FIELDS}
        values["user_id"] = self._owner(account["user_id"])
        self._objects(self._models().Account).create(**values)
        return {field: account[field] for field in ACCOUNT_FIELDS}

    def unlink_account(self, provider: str, provider_account_id: str) -> Record | None:
        where = {"provider": provider, "provider_account_id": provider_account_id}

        def work() -> Record | None:
            found = self._account(**where)
            if found is not None:
                self._accounts(**where).delete()
            if found is not None and found["type"] == "webauthn":  # its passkey goes with it
                self._authenticators(
                    user_id=self._owner(found["user_id"]), provider_account_id=provider_account_id
                ).delete()
            return found

        return self._write(work)

    def create_user_and_account(self, user: Record, account: Record) -> tuple[Record, Record]:
        def work() -> tuple[Record, Record]:
            created = self._insert_user(user)
            return created, self._insert_account({**account, "user_id": created["id"]})

        return self._write(work)

    def get_account(self, provider: str, provider_account_id: str) -> Record | None:
        where = {"provider": provider, "provider_account_id": provider_account_id}
        return self._read(lambda: self._account(**where))

    def list_accounts_by_user_id(self, user_id: str) -> list[Record]:
        key = self.users.key(user_id)
        if key is None:
            return []
        query = self._accounts(user_id=key).order_by("pk").values_list(*ACCOUNT_FIELDS)
        return [self._account_record(row) for row in self._read(lambda: list(query))]

    def update_account_tokens(
        self, provider: str, provider_account_id: str, expected: str | None, tokens: Record
    ) -> Record | None:
        where = {"provider": provider, "provider_account_id": provider_account_id}

        def work() -> Record | None:
            if tokens:
                current = self._accounts(**where)
                if expected is None:
                    current = current.filter(refresh_token__isnull=True)
                else:
                    current = current.filter(refresh_token=expected)
                if current.update(**tokens) != 1:
                    return None
            found = self._account(**where)
            if not tokens and (found is None or found["refresh_token"] != expected):
                return None
            return found

        return self._write(work)

    # sessions

    def _sessions(self, **where: Any) -> Any:
        return self._objects(self._models().Session).filter(**where)

    def _session(self, session_token: str) -> Record | None:
        row = first_row(self._sessions(session_token=session_token).values_list(*SESSION_LOOKUPS))
        return None if row is None else session_record(row)

    def create_session(self, session: Record) -> Record:
        values = {
            "session_token": session["session_token"],
            "user_id": self._owner(session["user_id"]),
            "expires": to_db(session["expires"]),
            "sid": session.get("sid"),
            **device_values(session),
        }
        self._write(lambda: self._objects(self._models().Session).create(**values))
        return session

    def get_session_and_user(self, session_token: str) -> tuple[Record, Record] | None:
        """The session and its user, in one query; ``None`` too when the user is inactive
        (``is_active`` false: Django's sign-in refuses them)."""
        users = self.users
        query = self._sessions(session_token=session_token)
        if users.has_is_active:
            query = query.filter(user__is_active=True)
        query = query.values_list(*SESSION_LOOKUPS, *users.lookups("user__"))
        row = self._read(lambda: first_row(query))
        if row is None:
            return None
        return session_record(row), users.record(row, len(SESSION_LOOKUPS))

    def update_session(self, update: Record) -> Record | None:
        values: dict[str, Any] = {}
        if "user_id" in update:
            values["user_id"] = self._owner(update["user_id"])
        for key in ("expires", "last_seen_at"):
            if key in update:
                values[key] = to_db(update[key])

        def work() -> Record | None:
            if values:
                self._sessions(session_token=update["session_token"]).update(**values)
            return self._session(update["session_token"])

        return self._write(work)

    def delete_session(self, session_token: str) -> Record | None:
        def work() -> Record | None:
            found = self._session(session_token)
            if found is None:
                return None
            deleted, _ = self._sessions(session_token=session_token).delete()
            return found if deleted == 1 else None

        return self._write(work)

    def delete_sessions_by_user_id(self, user_id: str) -> int:
        key = self.users.key(user_id)
        if key is None:
            return 0
        return self._write(lambda: int(self._sessions(user_id=key).delete()[0]))

    def delete_sessions_by_sid(self, sid: str) -> int:
        return self._write(lambda: int(self._sessions(sid=sid).delete()[0]))

    # verification tokens

    def create_verification_token(self, token: Record) -> Record:
        values = {**token, "expires": to_db(token["expires"])}
        self._write(lambda: self._objects(self._models().VerificationToken).create(**values))
        return token

    def use_verification_token(self, identifier: str, token: str) -> Record | None:
        tokens = self._objects(self._models().VerificationToken)
        where = tokens.filter(identifier=identifier, token=token)

        def work() -> Record | None:
            row = first_row(where.values_list("identifier", "token", "expires"))
            if row is None:
                return None
            # Of two racing uses both may read the row; only one deletes it.
            deleted, _ = where.delete()
            if deleted != 1:
                return None
            return {"identifier": row[0], "token": row[1], "expires": from_db(row[2])}

        return self._write(work)

    # authenticators

    def _authenticators(self, **where: Any) -> Any:
        return self._objects(self._models().Authenticator).filter(**where)

    @staticmethod
    def _authenticator_record(row: Any) -> Record:
        record = dict(zip(AUTHENTICATOR_FIELDS, row, strict=True))
        record["user_id"] = str(record["user_id"])
        return record

    def _authenticator(self, credential_id: str) -> Record | None:
        query = self._authenticators(credential_id=credential_id)
        row = first_row(query.values_list(*AUTHENTICATOR_FIELDS))
        return None if row is None else self._authenticator_record(row)

    def get_authenticator(self, credential_id: str) -> Record | None:
        return self._read(lambda: self._authenticator(credential_id))

    def create_authenticator(self, authenticator: Record) -> Record:
        values = {**authenticator, "user_id": self._owner(authenticator["user_id"])}
        self._write(lambda: self._objects(self._models().Authenticator).create(**values))
        return authenticator

    def list_authenticators_by_user_id(self, user_id: str) -> list[Record]:
        key = self.users.key(user_id)
        if key is None:
            return []
        query = self._authenticators(user_id=key).order_by("pk")
        rows = self._read(lambda: list(query.values_list(*AUTHENTICATOR_FIELDS)))
        return [self._authenticator_record(row) for row in rows]

    def update_authenticator_counter(self, credential_id: str, counter: int) -> Record:
        def work() -> Record:
            self._authenticators(credential_id=credential_id).update(counter=counter)
            found = self._authenticator(credential_id)
            if found is None:
                raise LookupError(f"no authenticator with credential id {credential_id!r}")
            return found

        return self._write(work)

    # revocations

    def set_sessions_not_before(
        self, key: str, not_before: datetime, expires: datetime | None = None
    ) -> None:
        """A later mark wins, its expiry the later one (``None``, kept, wins); marks whose
        expiry ``not_before`` (the engine's now) has passed are forgotten."""
        marks = self._objects(self._models().SessionRevocation)

        def work() -> None:
            marks.filter(expires__lte=to_db(not_before)).delete()
            mark = marks.select_for_update().filter(key=key)
            row = first_row(mark.values_list("not_before", "expires"))
            if row is None:
                marks.create(key=key, not_before=to_db(not_before), expires=to_db(expires))
                return
            was, until = from_db(row[0]), from_db(row[1])
            latest = max(was, not_before) if was is not None else not_before
            kept = None if until is None or expires is None else max(until, expires)
            mark.update(not_before=to_db(latest), expires=to_db(kept))

        self._first_write_wins(work)

    def get_sessions_not_before(self, keys: list[str]) -> datetime | None:
        marks = self._objects(self._models().SessionRevocation).filter(key__in=keys)
        latest = self._read(lambda: marks.aggregate(latest=Max("not_before"))["latest"])
        return from_db(latest)

    # rate-limit counters

    def increment_counter(self, key: str, window: int, now: datetime) -> tuple[int, datetime]:
        """See :class:`sansio_auth.adapters.Counters`: a counter whose window has passed
        starts again; expired counters are purged now and then."""
        counters = self._objects(self._models().RateLimitCounter)
        found: list[tuple[int, datetime]] = []

        def work() -> None:
            found.clear()
            if self._purge.due():
                counters.filter(reset_at__lte=to_db(now)).delete()
            counter = counters.select_for_update().filter(key=key)
            row = first_row(counter.values_list("count", "reset_at"))
            reset_at = from_db(row[1]) if row is not None else None
            if row is None or reset_at is None or reset_at <= now:
                fresh = now + timedelta(seconds=window)
                if row is None:
                    counters.create(key=key, count=1, reset_at=to_db(fresh))
                else:
                    counter.update(count=1, reset_at=to_db(fresh))
                found.append((1, fresh))
            else:
                counter.update(count=F("count") + 1)
                found.append((int(row[0]) + 1, reset_at))

        self._first_write_wins(work)
        count, reset_at = found[0]
        return count, reset_at.astimezone(UTC)


class DjangoAdapter(AccountMethods, StoreAdapter):
    """The Django ORM adapter (``AuthConfig(adapter=DjangoAdapter())``).

    ``using`` is the database alias (``"default"``); it must hold the user model's table.
    ``user_fields`` maps the record keys ``email``, ``email_verified``, ``name`` and
    ``image`` to fields of your user model when their names differ (``None``: keep it in
    :class:`~io_bindings.django.orm.models.UserProfile`).
    """

    password_hasher = DjangoHashers()
    """Passwords are Django's: checked and made by ``PASSWORD_HASHERS``, in ``user.password``."""

    def __init__(
        self, using: str = "default", *, user_fields: Mapping[str, str | None] | None = None
    ) -> None:
        self.store = DjangoStore(using, user_fields or {})
        super().__init__(self.store, threaded=True)

    async def call_in_thread(self, function: Callable[[], T]) -> T:
        """Run ``function`` (ORM code of yours, e.g. sending a signal) in one of the store's
        threads, its connection to ``using`` handled as the store's own calls'."""
        return await self._run(self.store.in_connection, function)
