"""The kinds of provider, each registered once with its record type and its flows.

``POST signin/<id>`` and ``GET|POST callback/<id>`` look the provider's kind up here
by its ``type``. A new kind (WebAuthn) is one more :class:`ProviderKind` in :data:`KINDS`
(and its record type in :data:`sansio_auth.providers.PROVIDER_KINDS`, which resolves
providers given as mappings below the flows; a test keeps the two equal).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .._context import Context, Reply
from .._flow import Step
from ..errors import Configuration
from ..providers import (
    CredentialsProvider,
    EmailProvider,
    OAuthProvider,
    OIDCProvider,
    PasswordProvider,
    Provider,
    WebAuthnProvider,
)
from .credentials import credentials_callback
from .email import email_callback, email_sign_in
from .oauth import oauth_callback, oauth_sign_in
from .password import password_callback
from .webauthn import webauthn_callback

P = TypeVar("P", bound=Provider)
KindFlow = Callable[[Context, P], Step[Reply]]


@dataclass(frozen=True, kw_only=True, slots=True)
class ProviderKind(Generic[P]):
    """A kind of provider: its record type and the flows that sign in with it."""

    record: type[P]
    callback: KindFlow[P]
    """Finishes a sign-in at ``callback/<id>``."""
    callback_methods: frozenset[str]
    """The HTTP methods ``callback/<id>`` accepts."""
    sign_in: KindFlow[P] | None = None
    """Starts a sign-in at ``POST signin/<id>``; ``None``: the sign-in page does it."""
    json_redirects: bool = False
    """Its callback answers a script as the account routes do (``{"url"}`` where a browser
    is redirected: :attr:`Context.json_redirects`); Auth.js's kinds keep Auth.js's answer."""

    def start(self, ctx: Context, provider: Provider) -> Step[Reply] | None:
        """The flow starting a sign-in with ``provider``, or ``None`` when the kind has none."""
        return None if self.sign_in is None else self.sign_in(ctx, self.record_of(provider))

    def finish(self, ctx: Context, provider: Provider) -> Step[Reply]:
        """The flow of ``provider``'s callback."""
        return self.callback(ctx, self.record_of(provider))

    def record_of(self, provider: Provider) -> P:
        """``provider`` as this kind's record type; a record of another type is refused."""
        if not isinstance(provider, self.record):
            raise Configuration(
                f"provider {provider.id!r} has type {provider.type!r} "
                f"but is not a {self.record.__name__}"
            )
        return provider


# A plain tuple, without a ``ProviderKind[Any]`` type context, so that mypy checks that the
# flows of each kind take its record type.
_REGISTERED = (
    ProviderKind(
        record=CredentialsProvider,
        callback=credentials_callback,
        callback_methods=frozenset({"POST"}),
    ),
    ProviderKind(
        record=EmailProvider,
        sign_in=email_sign_in,
        callback=email_callback,
        callback_methods=frozenset({"GET"}),
    ),
    ProviderKind(
        record=OAuthProvider,
        sign_in=oauth_sign_in,
        callback=oauth_callback,
        callback_methods=frozenset({"GET", "POST"}),
    ),
    ProviderKind(
        record=OIDCProvider,
        sign_in=oauth_sign_in,
        callback=oauth_callback,
        callback_methods=frozenset({"GET", "POST"}),
    ),
    ProviderKind(
        record=WebAuthnProvider,
        callback=webauthn_callback,
        callback_methods=frozenset({"POST"}),
    ),
    ProviderKind(
        record=PasswordProvider,
        callback=password_callback,
        callback_methods=frozenset({"POST"}),
        json_redirects=True,
    ),
)
KINDS: Mapping[str, ProviderKind[Any]] = {kind.record.kind: kind for kind in _REGISTERED}
"""Every kind of provider by its ``type``."""
