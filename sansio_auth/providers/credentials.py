"""The credentials provider: sign-in with a form your ``authorize`` function checks."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ._base import Provider, ProviderType


@dataclass(frozen=True, kw_only=True)
class CredentialsProvider(Provider):
    """A credentials provider record.

    ``authorize(credentials, request)`` (sync or async) receives the posted form
    and the :class:`~sansio_auth.http.Request`; it returns the user (a mapping
    with at least ``id``), or ``None``, or raises
    :class:`~sansio_auth.errors.CredentialsSignin` (with a vague ``code``).
    ``credentials`` describes the form fields: ``{name: {"label": ..., "type": ..., ...}}``;
    every key other than ``label`` becomes an attribute of the ``<input>``.
    """

    kind: ClassVar[ProviderType] = "credentials"
    defaults: ClassVar[Mapping[str, Any]] = {"id": "credentials", "name": "Credentials"}
    authorize: Callable[..., Any] | None = None
    credentials: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


def Credentials(**options: Any) -> CredentialsProvider:  # noqa: N802 - Auth.js's name
    """The credentials provider (id ``credentials``, name ``Credentials``) with ``options``."""
    return CredentialsProvider.from_mapping(options)
