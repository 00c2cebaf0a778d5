"""``POST signin[/<provider>]``: start a sign-in with the provider's kind's flow."""

from __future__ import annotations

from .._context import Context, Reply
from .._flow import Step
from ..errors import Configuration
from .kinds import KINDS


def sign_in(ctx: Context) -> Step[Reply]:
    """Start the provider kind's sign-in; without a provider (or for credentials) go to the page."""
    ctx.check_csrf()
    yield from ctx.callback_url()
    if ctx.provider_id is None:
        return Reply(redirect=ctx.url("signin"))
    provider = ctx.settings.providers_by_id.get(ctx.provider_id)
    if provider is None:
        known = ", ".join(ctx.settings.providers_by_id)
        raise Configuration(f"Provider with id {ctx.provider_id!r} not found. Available: {known}")
    kind = KINDS.get(provider.type)
    start = None if kind is None else kind.start(ctx, provider)
    if start is None:
        return Reply(redirect=ctx.url("signin"))
    return (yield from start)
