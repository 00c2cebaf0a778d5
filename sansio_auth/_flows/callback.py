"""``GET|POST callback/<provider>``: finish a sign-in with the provider's method."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._context import Context, Reply
from .._flow import Step
from ..errors import InvalidProvider
from .credentials import credentials_callback
from .email import email_callback
from .oauth import oauth_callback

CallbackHandler = Callable[[Context, Any], Step[Reply]]
CALLBACK_BY_TYPE: dict[str, tuple[frozenset[str], CallbackHandler]] = {
    "credentials": (frozenset({"POST"}), credentials_callback),
    "email": (frozenset({"GET"}), email_callback),
    "oauth": (frozenset({"GET", "POST"}), oauth_callback),
    "oidc": (frozenset({"GET", "POST"}), oauth_callback),
}
"""Methods and handler per provider type (``oauth``, ``oidc``, ``email`` register here)."""


def callback(ctx: Context) -> Step[Reply]:
    """Dispatch to the provider type's callback handler."""
    provider = ctx.settings.providers_by_id.get(ctx.provider_id or "")
    if provider is None:
        raise InvalidProvider(
            f"Callback route called without a known provider ({ctx.provider_id!r})"
        )
    methods, handler = CALLBACK_BY_TYPE.get(provider.type, (frozenset(), None))
    if handler is None or ctx.method not in methods:
        raise InvalidProvider(
            f"The {provider.type} provider {provider.id!r} cannot be called back with {ctx.method}"
        )
    return (yield from handler(ctx, provider))
