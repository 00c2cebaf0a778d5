"""The declarative models of the SQLAlchemy adapter: Auth.js's tables, or your own.

The default tables are those of ``@auth/pg-adapter`` (``users``, ``accounts``,
``sessions``, ``verification_token``) with their camelCase column names, plus
``authenticators`` (passkeys) in the same style; not in Auth.js: ``session_revocations``
(revocable sessions), ``rate_limit_counters``, a ``sid`` on sessions (the provider session,
for back-channel logout), ``user_passwords`` and ``user_two_factors`` (password accounts and
two-factor), ``session_records`` (the user's list of JWT sessions) and the device columns
of ``sessions`` (``"createdAt"``, ``"lastSeenAt"``, ``"userAgent"``, ``"ipAddress"``,
nullable: Auth.js's rows have none): the tables of our PostgreSQL adapter. Attributes are
snake_case, as the adapter's records are: ``User.email_verified`` is the column
``"emailVerified"``.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import msgspec
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Dialect,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.dialects import mysql, postgresql
from sqlalchemy.orm import DeclarativeBase, mapped_column
from sqlalchemy.types import TypeEngine

TABLES = {
    "users": "users",
    "accounts": "accounts",
    "sessions": "sessions",
    "verification_tokens": "verification_token",
    "authenticators": "authenticators",
    "session_revocations": "session_revocations",
    "rate_limit_counters": "rate_limit_counters",
    "passwords": "user_passwords",
    "two_factors": "user_two_factors",
    "session_records": "session_records",
}
"""Our name of each table → its default table name (``@auth/pg-adapter``'s where it has one)."""

USER_KEYS = ("id", "email", "email_verified", "name", "image")


class UTCDateTime(TypeDecorator[datetime]):
    """A point in time, stored in UTC and read back timezone-aware (UTC).

    ``TIMESTAMP WITH TIME ZONE`` where the database has it (PostgreSQL); elsewhere the
    UTC wall time (SQLite text, MySQL/MariaDB ``DATETIME(6)``, microseconds kept).
    Naive datetimes are refused: their zone is unknown.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name in ("mysql", "mariadb"):
            return dialect.type_descriptor(mysql.DATETIME(fsp=6))
        return dialect.type_descriptor(DateTime(timezone=True))

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"a naive datetime cannot be stored: {value!r}")
        value = value.astimezone(UTC)
        return value if dialect.name == "postgresql" else value.replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else as_utc(value)


def as_utc(value: datetime) -> datetime:
    """``value`` in UTC; a naive one is taken to be UTC already (as :class:`UTCDateTime` stores)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class CodeList(TypeDecorator[list[str]]):
    """A list of strings (the hashed recovery codes): ``TEXT[]`` on PostgreSQL, as our
    PostgreSQL adapter has it; elsewhere a JSON array in a text column."""

    impl = Text
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(postgresql.ARRAY(Text))
        return dialect.type_descriptor(Text())

    def process_bind_param(self, value: list[str] | None, dialect: Dialect) -> Any:
        if value is None or dialect.name == "postgresql":
            return value
        return msgspec.json.encode(list(value)).decode()

    def process_result_value(self, value: Any, dialect: Dialect) -> list[str] | None:
        if value is None or isinstance(value, list):
            return value
        return list(msgspec.json.decode(value))


def Key(length: int = 255) -> TypeEngine[str]:  # noqa: N802 - reads as a type
    """A string compared exactly: e-mail addresses, tokens and ids must not match in another
    case (MySQL's and MariaDB's default collations ignore case)."""
    return String(length).with_variant(
        mysql.VARCHAR(length, charset="utf8mb4", collation="utf8mb4_bin"), "mysql", "mariadb"
    )


class AuthBase(DeclarativeBase):
    """The declarative base of the default models (:data:`io_bindings.db.sqlalchemy.models`)."""


class User(AuthBase):
    """A user: ``@auth/pg-adapter``'s ``users`` table (``SERIAL`` ids). On SQLite the id is
    ``AUTOINCREMENT``: without it, a deleted user's id goes to the next new user."""

    __tablename__ = "users"
    __table_args__ = {"sqlite_autoincrement": True}  # noqa: RUF012 - SQLAlchemy's declaration
    id = mapped_column(Integer, primary_key=True, autoincrement=True)
    name = mapped_column(String(255))
    email = mapped_column(Key(), unique=True)
    email_verified = mapped_column("emailVerified", UTCDateTime)
    image = mapped_column(Text)


def _user_id_type(user_id: Column[Any]) -> TypeEngine[Any]:
    """The type of a column that refers to the user id column ``user_id``."""
    id_type = user_id.type
    return Key() if isinstance(id_type, String) else id_type


def _owner(user_id: Column[Any]) -> Any:
    """A ``"userId"`` column: a user's, removed with the user."""
    return mapped_column(
        "userId",
        _user_id_type(user_id),
        ForeignKey(user_id, ondelete="CASCADE"),
        nullable=False,
        index=True,
    )


def _account_columns(user_id: Column[Any], table: str) -> dict[str, Any]:
    return {
        "__tablename__": table,
        "__table_args__": (UniqueConstraint("provider", "providerAccountId"),),
        "id": mapped_column(Integer, primary_key=True, autoincrement=True),
        "user_id": _owner(user_id),
        "type": mapped_column(String(255), nullable=False),
        "provider": mapped_column(Key(), nullable=False),
        "provider_account_id": mapped_column("providerAccountId", Key(), nullable=False),
        "refresh_token": mapped_column(Text),
        "access_token": mapped_column(Text),
        "expires_at": mapped_column(BigInteger),
        "id_token": mapped_column(Text),
        "scope": mapped_column(Text),
        "session_state": mapped_column(Text),
        "token_type": mapped_column(Text),
    }


def _one_per_user(user_id: Column[Any]) -> Any:
    """A ``"userId"`` primary key: one row per user, removed with the user."""
    return mapped_column(
        "userId", _user_id_type(user_id), ForeignKey(user_id, ondelete="CASCADE"), primary_key=True
    )


def _password_columns(user_id: Column[Any], table: str) -> dict[str, Any]:
    return {
        "__tablename__": table,
        "user_id": _one_per_user(user_id),
        "hash": mapped_column(Text, nullable=False),
    }


def _two_factor_columns(user_id: Column[Any], table: str) -> dict[str, Any]:
    return {
        "__tablename__": table,
        "user_id": _one_per_user(user_id),
        "totp_secret": mapped_column("totpSecret", Text, nullable=False),
        "totp_last_step": mapped_column("totpLastStep", BigInteger),
        "recovery_codes": mapped_column("recoveryCodes", CodeList, nullable=False),
        "enabled_at": mapped_column("enabledAt", UTCDateTime, nullable=False),
    }


def _session_columns(user_id: Column[Any], table: str) -> dict[str, Any]:
    return {
        "__tablename__": table,
        "id": mapped_column(Integer, primary_key=True, autoincrement=True),
        "user_id": _owner(user_id),
        "expires": mapped_column(UTCDateTime, nullable=False),
        "session_token": mapped_column("sessionToken", Key(), unique=True, nullable=False),
        "sid": mapped_column(Key(), index=True),
        **_device_columns(nullable=True),
    }


def _device_columns(*, nullable: bool) -> dict[str, Any]:
    """What a session keeps for the user's list of sessions (not in Auth.js)."""
    return {
        "created_at": mapped_column("createdAt", UTCDateTime, nullable=nullable),
        "last_seen_at": mapped_column("lastSeenAt", UTCDateTime, nullable=nullable),
        "user_agent": mapped_column("userAgent", Text),
        "ip_address": mapped_column("ipAddress", String(64)),
    }


def _session_record_columns(table: str) -> dict[str, Any]:
    """A JWT session's record; ``"userId"`` has no foreign key (a credentials user is not
    stored)."""
    return {
        "__tablename__": table,
        "sid": mapped_column(Key(), primary_key=True),
        "user_id": mapped_column("userId", Key(), nullable=False, index=True),
        "expires": mapped_column(UTCDateTime, nullable=False),
        **_device_columns(nullable=False),
    }


def _verification_token_columns(table: str) -> dict[str, Any]:
    return {
        "__tablename__": table,
        "identifier": mapped_column(Key(), primary_key=True),
        "expires": mapped_column(UTCDateTime, nullable=False),
        "token": mapped_column(Key(), primary_key=True),
    }


def _authenticator_columns(user_id: Column[Any], table: str) -> dict[str, Any]:
    return {
        "__tablename__": table,
        "credential_id": mapped_column("credentialID", Key(512), primary_key=True),
        "user_id": _owner(user_id),
        "provider_account_id": mapped_column("providerAccountId", Key(512), nullable=False),
        "credential_public_key": mapped_column("credentialPublicKey", Text, nullable=False),
        "counter": mapped_column(BigInteger, nullable=False),
        "credential_device_type": mapped_column("credentialDeviceType", String(32), nullable=False),
        "credential_backed_up": mapped_column("credentialBackedUp", Boolean, nullable=False),
        "transports": mapped_column(String(255)),
    }


def _revocation_columns(table: str) -> dict[str, Any]:
    return {
        "__tablename__": table,
        "key": mapped_column(Key(), primary_key=True),
        "not_before": mapped_column("notBefore", UTCDateTime, nullable=False),
        "expires": mapped_column(UTCDateTime, index=True),
    }


def _counter_columns(table: str) -> dict[str, Any]:
    return {
        "__tablename__": table,
        "key": mapped_column(Key(), primary_key=True),
        "count": mapped_column(Integer, nullable=False),
        "reset_at": mapped_column("resetAt", UTCDateTime, nullable=False, index=True),
    }


def _make_models(base: type[DeclarativeBase], users: Column[Any], names: Mapping[str, str]) -> Any:
    """The models but the user's, made on ``base`` (their ``userId`` refers to ``users``)."""

    def model(name: str, columns: dict[str, Any]) -> Any:
        return type(name, (base,), {"__module__": __name__, **columns})

    return (
        model("Account", _account_columns(users, names["accounts"])),
        model("Session", _session_columns(users, names["sessions"])),
        model("VerificationToken", _verification_token_columns(names["verification_tokens"])),
        model("Authenticator", _authenticator_columns(users, names["authenticators"])),
        model("SessionRevocation", _revocation_columns(names["session_revocations"])),
        model("RateLimitCounter", _counter_columns(names["rate_limit_counters"])),
        model("UserPassword", _password_columns(users, names["passwords"])),
        model("UserTwoFactor", _two_factor_columns(users, names["two_factors"])),
        model("SessionRecord", _session_record_columns(names["session_records"])),
    )


_DEFAULT_MODELS = _make_models(AuthBase, User.__mapper__.columns["id"], TABLES)
Account = _DEFAULT_MODELS[0]
"""An account a user signs in with: ``@auth/pg-adapter``'s ``accounts`` table."""
Session = _DEFAULT_MODELS[1]
"""A database session: ``@auth/pg-adapter``'s ``sessions`` table."""
VerificationToken = _DEFAULT_MODELS[2]
"""A sign-in link's token (hashed): ``@auth/pg-adapter``'s ``verification_token`` table."""
Authenticator = _DEFAULT_MODELS[3]
"""A passkey: Auth.js's ``authenticators`` table."""
SessionRevocation = _DEFAULT_MODELS[4]
"""A "not before" mark that revokes sessions (``session_revocations``; not in Auth.js)."""
RateLimitCounter = _DEFAULT_MODELS[5]
"""A rate-limit counter (``rate_limit_counters``; not in Auth.js)."""
UserPassword = _DEFAULT_MODELS[6]
"""A user's password hash (``user_passwords``; not in Auth.js)."""
UserTwoFactor = _DEFAULT_MODELS[7]
"""A user's TOTP secret and recovery codes (``user_two_factors``; not in Auth.js)."""
SessionRecord = _DEFAULT_MODELS[8]
"""A JWT session's record, for the user's list of sessions (``session_records``; not in
Auth.js)."""


class AuthModels:
    """The models the adapter stores in: Auth.js's tables on ``base``, or your own.

    >>> auth = AuthModels()                           # the default models (AuthBase)
    >>> auth = AuthModels(Base, user=User)            # your User; the rest made on your Base
    >>> auth = AuthModels(Base, user=User, tables={"accounts": "auth_accounts"},
    ...                   user_fields={"email_verified": "verified_at"})

    ``user`` must have a primary key attribute ``id`` (an integer the database assigns,
    a string or a UUID), ``email`` (unique) and ``email_verified`` (a :class:`UTCDateTime`);
    ``name`` and ``image`` if it has them; ``user_fields`` maps those names to your
    attributes when they differ. Its other columns come back in the user records and take
    the values of the keys of that name. The other models are made on ``base`` (table names
    from :data:`TABLES`, overridden by ``tables``) and are the attributes ``Account``,
    ``Session``, ``VerificationToken``, ``Authenticator``, ``SessionRevocation``,
    ``RateLimitCounter``, ``UserPassword``, ``UserTwoFactor`` and ``SessionRecord``.
    """

    def __init__(
        self,
        base: type[DeclarativeBase] | None = None,
        *,
        user: type[Any] | None = None,
        tables: Mapping[str, str] | None = None,
        user_fields: Mapping[str, str] | None = None,
    ) -> None:
        unknown = sorted(set(tables or {}) - set(TABLES))
        if unknown:
            raise ValueError(f"unknown tables {unknown}: the names are {sorted(TABLES)}")
        self.tables = {**TABLES, **(tables or {})}
        self.user_fields = {key: key for key in USER_KEYS} | dict(user_fields or {})
        if base is None:
            base = AuthBase
            if user is None and not tables:
                user = User
        if user is None:
            raise ValueError("pass your user model too (AuthModels(Base, user=User))")
        self.base, self.User = base, user
        self.metadata: MetaData = base.metadata
        self.users: Table = user.__table__
        self.user_columns: dict[str, Column[Any]] = dict(user.__mapper__.columns.items())
        """The user model's columns by attribute name."""
        self._check_user()
        if user is User and self.tables == TABLES:
            made = _DEFAULT_MODELS
        else:
            made = _make_models(base, self.user_columns[self.user_fields["id"]], self.tables)
        (
            self.Account,
            self.Session,
            self.VerificationToken,
            self.Authenticator,
            self.SessionRevocation,
            self.RateLimitCounter,
            self.UserPassword,
            self.UserTwoFactor,
            self.SessionRecord,
        ) = made

    def _check_user(self) -> None:
        for key in ("id", "email", "email_verified"):
            if self.user_fields[key] not in self.user_columns:
                raise ValueError(f"the user model has no attribute {self.user_fields[key]!r}")
        if not self.user_columns[self.user_fields["id"]].primary_key:
            raise ValueError("the user model's id must be its primary key")

    @property
    def auth_tables(self) -> list[Table]:
        """The adapter's tables (for ``metadata.create_all(engine, tables=...)`` when your
        metadata holds other tables you create otherwise)."""
        models = (self.User, self.Account, self.Session, self.VerificationToken)
        models += (self.Authenticator, self.SessionRevocation, self.RateLimitCounter)  # type: ignore[assignment]
        models += (self.UserPassword, self.UserTwoFactor, self.SessionRecord)  # type: ignore[assignment]
        return [model.__table__ for model in models]

    @property
    def integer_ids(self) -> bool:
        """Whether user ids are integers the database assigns."""
        return _python_type(self.user_columns[self.user_fields["id"]]) is int

    def new_user_id(self, proposed: str) -> Any:
        """The id to insert for a new user: ``None`` when the database assigns it."""
        python_type = _python_type(self.user_columns[self.user_fields["id"]])
        if python_type is int:
            return None
        if python_type is uuid.UUID:
            return self.user_key(proposed) or uuid.uuid4()
        return proposed

    def user_key(self, user_id: str) -> Any:
        """``user_id`` as the id column takes it, ``None`` if no user can have that id."""
        python_type = _python_type(self.user_columns[self.user_fields["id"]])
        if python_type is int:
            digits = user_id.isascii() and user_id.isdigit() and len(user_id) < 19
            return int(user_id) if digits else None
        if python_type is uuid.UUID:
            try:
                return uuid.UUID(user_id)
            except ValueError:
                return None
        return user_id


def _python_type(column: Column[Any]) -> type:
    try:
        return column.type.python_type
    except NotImplementedError:
        return str
