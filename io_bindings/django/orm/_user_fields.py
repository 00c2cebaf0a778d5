"""Where each key of the store's user records lives: a field of ``settings.AUTH_USER_MODEL``,
or :class:`~io_bindings.django.orm.models.UserProfile` when the model has no field for it.

A record is ``id`` (the primary key, as text), ``email`` (the model's ``EMAIL_FIELD``),
``email_verified``, ``name`` and ``image``. The last three live on the user model when it has
a field of that name and kind (or the one ``user_fields`` names), else on the profile: Django's
own ``User`` has none of them (its ``first_name``/``last_name`` are left to you).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import FieldDoesNotExist, ImproperlyConfigured, ValidationError
from django.db import models
from django.utils import timezone

from ...db._base import Record

PROFILE_KEYS = ("email_verified", "name", "image")
"""The keys that live on the profile when the user model has no field for them."""
_KINDS: dict[str, tuple[type[models.Field[Any, Any]], ...]] = {
    "email_verified": (models.DateTimeField,),
    "name": (models.CharField, models.TextField),
    "image": (models.CharField, models.TextField),  # a URL: not an ImageField
}
_INTEGER_KEYS = (models.AutoField, models.BigAutoField, models.SmallAutoField, models.IntegerField)


def to_db(value: datetime | None) -> datetime | None:
    """An aware time as Django stores it (naive in the default zone when ``USE_TZ`` is off)."""
    if value is None or settings.USE_TZ:
        return value
    return timezone.make_naive(value, timezone.get_default_timezone())


def from_db(value: datetime | None) -> datetime | None:
    """A time Django read back, aware and in UTC."""
    if value is None:
        return None
    if timezone.is_naive(value):
        value = timezone.make_aware(value, timezone.get_default_timezone())
    return value.astimezone(UTC)


class UserFields:
    """The user model ``model`` as the store reads and writes it.

    ``fields`` maps ``email``, ``email_verified``, ``name`` or ``image`` to a field of the
    model (or, for the last three, to ``None``: keep it on the profile).
    """

    def __init__(self, model: Any, fields: Mapping[str, str | None]) -> None:
        unknown = sorted(set(fields) - {"email", *PROFILE_KEYS})
        if unknown:
            raise ImproperlyConfigured(f"sansio-auth: user_fields has unknown keys {unknown}")
        self.model = model
        self.pk: models.Field[Any, Any] = model._meta.pk
        self.email: str = fields.get("email") or model.get_email_field_name()
        email = self._field(self.email)
        self.username: str = getattr(model, "USERNAME_FIELD", self.email)
        self.on_user: dict[str, str] = {}
        """The keys of :data:`PROFILE_KEYS` that are fields of the model: key → field name."""
        for key in PROFILE_KEYS:
            name = fields.get(key, key)
            field = self._field(name, required=key in fields) if name else None
            if field is not None and isinstance(field, _KINDS[key]):
                self.on_user[key] = field.name
            elif field is not None and key in fields:
                raise ImproperlyConfigured(
                    f"sansio-auth: user field {name!r} for {key!r} must be a "
                    f"{' or '.join(kind.__name__ for kind in _KINDS[key])}"
                )
        self.on_profile = tuple(key for key in PROFILE_KEYS if key not in self.on_user)
        self.email_unique = bool(email and email.unique)
        self.has_is_active = self._field("is_active", required=False) is not None

    def _field(self, name: str, *, required: bool = True) -> models.Field[Any, Any] | None:
        try:
            field = self.model._meta.get_field(name)
        except FieldDoesNotExist:
            field = None
        if not isinstance(field, models.Field) or not field.concrete:
            if required:
                raise ImproperlyConfigured(
                    f"sansio-auth: the user model {self.model.__name__} has no field {name!r}"
                )
            return None
        return field

    def lookups(self, prefix: str = "") -> list[str]:
        """The ``values_list`` lookups of a record's values, the user reached by ``prefix``
        (``"user__"`` from a row that refers to it)."""
        paths = ["pk", self.email]
        paths += [self.on_user.get(key, f"auth_profile__{key}") for key in PROFILE_KEYS]
        return [prefix + path for path in paths]

    def record(self, row: Any, offset: int = 0) -> Record:
        """The record of the values :meth:`lookups` read, from ``row[offset]`` on."""
        pk, email, verified, name, image = row[offset : offset + 5]
        return {
            "id": str(pk),
            "email": email or None,
            "email_verified": from_db(verified),
            "name": name if name != "" else None,
            "image": image if image != "" else None,
        }

    def key(self, user_id: str) -> Any:
        """``user_id`` as the primary key takes it; ``None`` when no user can have it."""
        if isinstance(self.pk, _INTEGER_KEYS):
            digits = user_id.isascii() and user_id.isdigit() and len(user_id) < 19
            return int(user_id) if digits else None
        try:
            return self.pk.to_python(user_id)
        except (ValidationError, ValueError, TypeError):
            return None

    def new_key(self, proposed: str) -> Any:
        """The primary key of a new user: ``None`` when the database assigns it, else the
        ``proposed`` id when the key takes it, else a new UUID."""
        if isinstance(self.pk, _INTEGER_KEYS):
            return None
        if isinstance(self.pk, models.UUIDField):
            return self.key(proposed) or uuid.uuid4()
        return proposed

    def user_values(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """The user model's field values of the keys of ``record`` that live there."""
        values: dict[str, Any] = {}
        if "email" in record:
            values[self.email] = self._text(self.email, record["email"])
        for key, name in self.on_user.items():
            if key in record:
                value = record[key]
                values[name] = to_db(value) if key == "email_verified" else self._text(name, value)
        return values

    def profile_values(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """The profile's values of the keys of ``record`` that live there."""
        values = {key: record[key] for key in self.on_profile if key in record}
        if "email_verified" in values:
            values["email_verified"] = to_db(values["email_verified"])
        return values

    def _text(self, name: str, value: Any) -> Any:
        """``value`` for the text field ``name``: ``""`` for ``None`` where it takes no null;
        cut to its ``max_length``, except the e-mail address (one cut would be another's)."""
        field = self.model._meta.get_field(name)
        if value is None:
            return None if field.null else ""
        length = getattr(field, "max_length", None)
        if length and name != self.email and isinstance(value, str):
            return value[:length]
        return value
