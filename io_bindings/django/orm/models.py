"""The tables of the Django ORM store (:mod:`io_bindings.django.orm.store`): Auth.js's accounts,
sessions, verification tokens and authenticators (passkeys), all owned by
``settings.AUTH_USER_MODEL``, plus what a user model may lack, the revocation marks, the
rate-limit counters, and for password accounts the second factors and records of JWT
sessions (the user's list of sessions). Passwords are the user model's own ``password``.

Users are your user model's rows. What Auth.js keeps on a user and your model has no field
for (``email_verified``, and ``name`` and ``image`` unless the model has them) is kept in
:class:`UserProfile`, one row per user, made only when needed. Each relation to the user has
a reverse name starting ``auth_`` (``user.auth_accounts``, ``user.auth_sessions``,
``user.auth_authenticators``, ``user.auth_profile``, ``user.auth_two_factor``), so it cannot
clash with your own models'.
Deleting a user deletes what refers to it (Django's ``CASCADE``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import models


class Account(models.Model):
    """An account of a sign-in provider linked to a user (OAuth tokens as the provider sent
    them; ``expires_at`` in seconds since the epoch)."""

    user: models.ForeignKey[Any, Any] = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.CASCADE, related_name="auth_accounts"
    )
    type: models.CharField[str, str] = models.CharField(max_length=32)
    provider: models.CharField[str, str] = models.CharField(max_length=255)
    provider_account_id: models.CharField[str, str] = models.CharField(max_length=255)
    access_token: models.TextField[str | None, str | None] = models.TextField(null=True, blank=True)
    token_type: models.CharField[str | None, str | None] = models.CharField(
        max_length=255, null=True, blank=True
    )
    id_token: models.TextField[str | None, str | None] = models.TextField(null=True, blank=True)
    refresh_token: models.TextField[str | None, str | None] = models.TextField(
        null=True, blank=True
    )
    scope: models.TextField[str | None, str | None] = models.TextField(null=True, blank=True)
    expires_at: models.BigIntegerField[int | None, int | None] = models.BigIntegerField(
        null=True, blank=True
    )
    session_state: models.TextField[str | None, str | None] = models.TextField(
        null=True, blank=True
    )

    class Meta:
        db_table = "sansio_auth_account"
        constraints = (
            models.UniqueConstraint(
                fields=("provider", "provider_account_id"), name="sansio_auth_account_unique"
            ),
        )

    def __str__(self) -> str:
        return f"{self.provider} {self.provider_account_id}"


class Session(models.Model):
    """A database session: the browser's session cookie holds ``session_token``."""

    session_token: models.CharField[str, str] = models.CharField(max_length=255, unique=True)
    user: models.ForeignKey[Any, Any] = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.CASCADE, related_name="auth_sessions"
    )
    expires: models.DateTimeField[datetime, datetime] = models.DateTimeField()
    sid: models.CharField[str | None, str | None] = models.CharField(
        max_length=255, null=True, blank=True, db_index=True
    )
    """The provider session it belongs to (back-channel logout), when the sign-in had one."""
    created_at: models.DateTimeField[datetime | None, datetime | None] = models.DateTimeField(
        null=True, blank=True
    )
    """When the sign-in happened (the user's list of sessions; none on older rows)."""
    last_seen_at: models.DateTimeField[datetime | None, datetime | None] = models.DateTimeField(
        null=True, blank=True
    )
    user_agent: models.TextField[str | None, str | None] = models.TextField(null=True, blank=True)
    ip_address: models.CharField[str | None, str | None] = models.CharField(
        max_length=64, null=True, blank=True
    )

    class Meta:
        db_table = "sansio_auth_session"

    def __str__(self) -> str:
        return f"session of user {self.user.pk} until {self.expires:%Y-%m-%d %H:%M}"


class SessionRecord(models.Model):
    """What is kept of a JWT session (``session.revocation``) for the user's list of sessions:
    the session itself is the cookie. ``user_id`` is the token's ``sub``, not a foreign key
    (a credentials sign-in's user is not stored)."""

    sid: models.CharField[str, str] = models.CharField(max_length=255, primary_key=True)
    user_id: models.CharField[str, str] = models.CharField(max_length=255, db_index=True)
    expires: models.DateTimeField[datetime, datetime] = models.DateTimeField()
    created_at: models.DateTimeField[datetime, datetime] = models.DateTimeField()
    last_seen_at: models.DateTimeField[datetime, datetime] = models.DateTimeField()
    user_agent: models.TextField[str | None, str | None] = models.TextField(null=True, blank=True)
    ip_address: models.CharField[str | None, str | None] = models.CharField(
        max_length=64, null=True, blank=True
    )

    class Meta:
        db_table = "sansio_auth_session_record"

    def __str__(self) -> str:
        return f"JWT session {self.sid} of user {self.user_id}"


class VerificationToken(models.Model):
    """A pending e-mail sign-in link (``token`` is the engine's hash of it)."""

    identifier: models.CharField[str, str] = models.CharField(max_length=255)
    token: models.CharField[str, str] = models.CharField(max_length=255)
    expires: models.DateTimeField[datetime, datetime] = models.DateTimeField()

    class Meta:
        db_table = "sansio_auth_verification_token"
        constraints = (
            models.UniqueConstraint(
                fields=("identifier", "token"), name="sansio_auth_verification_token_unique"
            ),
        )

    def __str__(self) -> str:
        return f"sign-in link for {self.identifier}"


class Authenticator(models.Model):
    """A WebAuthn credential (passkey) of a user."""

    credential_id: models.CharField[str, str] = models.CharField(max_length=512, unique=True)
    user: models.ForeignKey[Any, Any] = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.CASCADE, related_name="auth_authenticators"
    )
    provider_account_id: models.CharField[str, str] = models.CharField(max_length=512)
    credential_public_key: models.TextField[str, str] = models.TextField()
    counter: models.BigIntegerField[int, int] = models.BigIntegerField()
    credential_device_type: models.CharField[str, str] = models.CharField(max_length=32)
    credential_backed_up: models.BooleanField[bool, bool] = models.BooleanField()
    transports: models.CharField[str | None, str | None] = models.CharField(
        max_length=255, null=True, blank=True
    )

    class Meta:
        db_table = "sansio_auth_authenticator"

    def __str__(self) -> str:
        return f"passkey {self.credential_id[:16]}…"


class UserProfile(models.Model):
    """What Auth.js keeps on a user that the user model has no field for."""

    user: models.OneToOneField[Any, Any] = models.OneToOneField(
        settings.AUTH_USER_MODEL, models.CASCADE, primary_key=True, related_name="auth_profile"
    )
    email_verified: models.DateTimeField[datetime | None, datetime | None] = models.DateTimeField(
        null=True, blank=True
    )
    name: models.TextField[str | None, str | None] = models.TextField(null=True, blank=True)
    image: models.TextField[str | None, str | None] = models.TextField(null=True, blank=True)

    class Meta:
        db_table = "sansio_auth_user_profile"

    def __str__(self) -> str:
        return f"sign-in profile of user {self.user.pk}"


class UserTwoFactor(models.Model):
    """A user's second factor (not in Auth.js): the authenticator app's secret, sealed by the
    engine; the last time step used; the unused recovery codes, hashed."""

    user: models.OneToOneField[Any, Any] = models.OneToOneField(
        settings.AUTH_USER_MODEL, models.CASCADE, primary_key=True, related_name="auth_two_factor"
    )
    totp_secret: models.TextField[str, str] = models.TextField()
    totp_last_step: models.BigIntegerField[int | None, int | None] = models.BigIntegerField(
        null=True, blank=True
    )
    recovery_codes: models.JSONField[list[str], list[str]] = models.JSONField(default=list)
    enabled_at: models.DateTimeField[datetime, datetime] = models.DateTimeField()

    class Meta:
        db_table = "sansio_auth_user_two_factor"

    def __str__(self) -> str:
        return f"second factor of user {self.user.pk}"


class SessionRevocation(models.Model):
    """Sessions of ``key`` (``user:<id>``, ``sid:<sid>``) issued before ``not_before`` are
    refused (JWT sessions; database sessions are deleted instead); forgotten once a later
    mark's ``not_before`` has passed ``expires`` (``None``: kept)."""

    key: models.CharField[str, str] = models.CharField(max_length=255, primary_key=True)
    not_before: models.DateTimeField[datetime, datetime] = models.DateTimeField()
    expires: models.DateTimeField[datetime | None, datetime | None] = models.DateTimeField(
        null=True, blank=True, db_index=True
    )

    class Meta:
        db_table = "sansio_auth_session_revocation"

    def __str__(self) -> str:
        return f"{self.key} not before {self.not_before:%Y-%m-%d %H:%M}"


class RateLimitCounter(models.Model):
    """A rate-limit counter: ``count`` hits since its window began, until ``reset_at``
    (the engine's keys are HMACs, never an address in clear)."""

    key: models.CharField[str, str] = models.CharField(max_length=255, primary_key=True)
    count: models.BigIntegerField[int, int] = models.BigIntegerField()
    reset_at: models.DateTimeField[datetime, datetime] = models.DateTimeField(db_index=True)

    class Meta:
        db_table = "sansio_auth_rate_limit_counter"

    def __str__(self) -> str:
        return f"{self.key[:16]}…: {self.count} until {self.reset_at:%H:%M:%S}"
