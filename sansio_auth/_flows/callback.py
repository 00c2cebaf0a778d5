"""``GET|POST callback/<provider>``: finish a sign-in with the provider's kind's flow."""

from __future__ import annotations

from .._context import Context, Reply
from .._flow import Step
from ..errors import InvalidProvider
from .kinds import KINDS


def callback(ctx: Context) -> Step[Reply]:
    """Dispatch to the callback flow of the provider's kind."""
    provider = ctx.settings.providers_by_id.get(ctx.provider_id or "")
    if provider is None:
        raise InvalidProvider(
            f"Callback route called without a known provider ({ctx.provider_id!r})"
        )
    kind = KINDS.get(provider.type)
    if kind is None or ctx.method not in kind.callback_methods:
        raise InvalidProvider(
            f"The {provider.type} provider {provider.id!r} cannot be called back with {ctx.method}"
        )
    ctx.json_redirects = kind.json_redirects
    return (yield from kind.finish(ctx, provider))
