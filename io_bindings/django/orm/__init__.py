"""The Django ORM store: sign-ins in your project's database, users in ``AUTH_USER_MODEL``.

>>> # settings.py: INSTALLED_APPS = [..., "django.contrib.auth", "io_bindings.django",
>>> #                                "io_bindings.django.orm"]
>>> from io_bindings.django.orm import DjangoAdapter
>>> config = AuthConfig(adapter=DjangoAdapter(), providers=[...])

An app of its own (label ``sansio_auth_orm``), so that the Django adapter itself still needs
neither ``django.contrib.auth`` nor a database. See ``docs/databases/django.md``.
"""

from .store import DjangoAdapter

__all__ = ["DjangoAdapter"]
