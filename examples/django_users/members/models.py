"""A custom user model, as many projects have one: the e-mail address is the username, a
``name`` field, no ``username``. The ORM store writes ``email`` and ``name`` here and keeps
``email_verified`` and ``image`` (fields it lacks) in its own profile table."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from django.contrib.auth.models import AbstractBaseUser, BaseUserManager, PermissionsMixin
from django.db import models
from django.utils import timezone


class UserManager(BaseUserManager["User"]):
    """``createsuperuser`` and ``User.objects.create_user(email, password)``."""

    def create_user(self, email: str, password: str | None = None, **fields: Any) -> User:
        """A user with ``email`` (and ``password``, else none usable)."""
        user = self.model(email=self.normalize_email(email), **fields)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **fields: Any) -> User:
        """A user who may do anything, in the admin too."""
        return self.create_user(email, password, is_staff=True, is_superuser=True, **fields)


class User(AbstractBaseUser, PermissionsMixin):  # type: ignore[misc]  # django-stubs: two Metas
    """A member. E-mail addresses are unique (and missing for providers that give none)."""

    email: models.EmailField[str | None, str | None] = models.EmailField(
        unique=True, null=True, blank=True
    )
    name: models.CharField[str, str] = models.CharField(max_length=150, blank=True)
    is_staff: models.BooleanField[bool, bool] = models.BooleanField(default=False)
    is_active: models.BooleanField[bool, bool] = models.BooleanField(default=True)
    date_joined: models.DateTimeField[datetime, datetime] = models.DateTimeField(
        default=timezone.now
    )

    objects: ClassVar[UserManager] = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = []

    def __str__(self) -> str:
        return self.email or self.name or f"member {self.pk}"
