"""``POST signin[/<provider>]``: start a sign-in with the provider's method."""

from __future__ import annotations

from collections.abc import Callable

from .._context import Context, Reply
from .._flow import Step
from ..errors import Configuration
from ..providers import Provider
from .email import email_sign_in
from .oauth import oauth_sign_in

SignInStart = Callable[[Context, Provider], Step[Reply]]
SIGN_IN_BY_TYPE: dict[str, SignInStart] = {
    "email": email_sign_in,
    "oauth": oauth_sign_in,
    "oidc": oauth_sign_in,
}
"""How each provider type starts a sign-in (``oauth``, ``oidc``, ``email`` register here)."""


def sign_in(ctx: Context) -> Step[Reply]:
    """Dispatch on the provider's type; without a provider (or for credentials) go to the page."""
    ctx.check_csrf()
    yield from ctx.callback_url()
    if ctx.provider_id is None:
        return Reply(redirect=ctx.url("signin"))
    provider = ctx.settings.providers_by_id.get(ctx.provider_id)
    if provider is None:
        known = ", ".join(ctx.settings.providers_by_id)
        raise Configuration(f"Provider with id {ctx.provider_id!r} not found. Available: {known}")
    start = SIGN_IN_BY_TYPE.get(provider.type)
    if start is None:
        return Reply(redirect=ctx.url("signin"))
    return (yield from start(ctx, provider))
