"""Auth.js's tables for the SQLAlchemy adapter's default models (Alembic revision).

Copy this file into your Alembic ``versions/`` directory and set ``down_revision`` to your
latest revision (or leave ``None`` if it is your first). It creates what
``io_bindings.db.sqlalchemy.models.metadata.create_all()`` creates: ``users``,
``accounts``, ``sessions``, ``verification_token``, ``authenticators``,
``session_revocations``, ``rate_limit_counters``, ``user_passwords``, ``user_two_factors``
and ``session_records`` (a test checks that ``alembic revision --autogenerate`` finds
nothing to add after it, on SQLite, PostgreSQL and MariaDB). With your own models
(``AuthModels(Base, user=User)``), let ``--autogenerate`` write the revision instead,
with ``render_item=alembic_render_item`` (from :mod:`io_bindings.db.sqlalchemy`) in
``env.py``'s ``context.configure``.

Revision ID: sansio_auth_0001
Revises:
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

from io_bindings.db.sqlalchemy import CodeList, Key, UTCDateTime

revision = "sansio_auth_0001"
down_revision: str | None = None
branch_labels = None
depends_on = None


def _owner() -> sa.Column[int]:
    """The ``"userId"`` column: a user's, removed with the user."""
    return sa.Column(
        "userId",
        sa.Integer(),
        sa.ForeignKey("users.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    )


def _one_per_user() -> sa.Column[int]:
    """A ``"userId"`` primary key: one row per user, removed with the user."""
    return sa.Column(
        "userId", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )


def _device(*, nullable: bool) -> list[sa.Column[Any]]:
    """A session's device columns (the user's list of sessions)."""
    return [
        sa.Column("createdAt", UTCDateTime(), nullable=nullable),
        sa.Column("lastSeenAt", UTCDateTime(), nullable=nullable),
        sa.Column("userAgent", sa.Text()),
        sa.Column("ipAddress", sa.String(64)),
    ]


def upgrade() -> None:
    """Create the tables."""
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(255)),
        sa.Column("email", Key(), unique=True),
        sa.Column("emailVerified", UTCDateTime()),
        sa.Column("image", sa.Text()),
        sqlite_autoincrement=True,  # a deleted user's id never goes to a new user
    )
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        _owner(),
        sa.Column("type", sa.String(255), nullable=False),
        sa.Column("provider", Key(), nullable=False),
        sa.Column("providerAccountId", Key(), nullable=False),
        sa.Column("refresh_token", sa.Text()),
        sa.Column("access_token", sa.Text()),
        sa.Column("expires_at", sa.BigInteger()),
        sa.Column("id_token", sa.Text()),
        sa.Column("scope", sa.Text()),
        sa.Column("session_state", sa.Text()),
        sa.Column("token_type", sa.Text()),
        sa.UniqueConstraint("provider", "providerAccountId"),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        _owner(),
        sa.Column("expires", UTCDateTime(), nullable=False),
        sa.Column("sessionToken", Key(), nullable=False, unique=True),
        sa.Column("sid", Key(), index=True),
        *_device(nullable=True),
    )
    op.create_table(
        "verification_token",
        sa.Column("identifier", Key(), primary_key=True),
        sa.Column("expires", UTCDateTime(), nullable=False),
        sa.Column("token", Key(), primary_key=True),
    )
    op.create_table(
        "authenticators",
        sa.Column("credentialID", Key(512), primary_key=True),
        _owner(),
        sa.Column("providerAccountId", Key(512), nullable=False),
        sa.Column("credentialPublicKey", sa.Text(), nullable=False),
        sa.Column("counter", sa.BigInteger(), nullable=False),
        sa.Column("credentialDeviceType", sa.String(32), nullable=False),
        sa.Column("credentialBackedUp", sa.Boolean(), nullable=False),
        sa.Column("transports", sa.String(255)),
    )
    op.create_table(
        "session_revocations",
        sa.Column("key", Key(), primary_key=True),
        sa.Column("notBefore", UTCDateTime(), nullable=False),
        sa.Column("expires", UTCDateTime(), index=True),
    )
    op.create_table(
        "rate_limit_counters",
        sa.Column("key", Key(), primary_key=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("resetAt", UTCDateTime(), nullable=False, index=True),
    )
    op.create_table(
        "user_passwords",
        _one_per_user(),
        sa.Column("hash", sa.Text(), nullable=False),
    )
    op.create_table(
        "user_two_factors",
        _one_per_user(),
        sa.Column("totpSecret", sa.Text(), nullable=False),
        sa.Column("totpLastStep", sa.BigInteger()),
        sa.Column("recoveryCodes", CodeList(), nullable=False),
        sa.Column("enabledAt", UTCDateTime(), nullable=False),
    )
    op.create_table(
        "session_records",
        sa.Column("sid", Key(), primary_key=True),
        sa.Column("userId", Key(), nullable=False, index=True),
        sa.Column("expires", UTCDateTime(), nullable=False),
        *_device(nullable=False),
    )


def downgrade() -> None:
    """Drop the tables (and everything in them)."""
    for table in (
        "session_records",
        "user_two_factors",
        "user_passwords",
        "rate_limit_counters",
        "session_revocations",
        "authenticators",
        "verification_token",
        "sessions",
        "accounts",
        "users",
    ):
        op.drop_table(table)
