"""``POST callback/<credentials id>``: check the form with ``authorize`` and sign in."""

from __future__ import annotations

from .._context import Context, Reply
from .._flow import Step, invoke
from ..errors import AuthError, CallbackRouteError, CredentialsSignin
from ..providers import CredentialsProvider
from ..ratelimit import account_field, account_of
from .limits import password_attempt
from .login import as_user, finish_login, run_sign_in_callback
from .strategies import LoginResult


def credentials_callback(ctx: Context, provider: CredentialsProvider) -> Step[Reply]:
    """Authorize the posted credentials (within the rate limits); on success set a JWT
    session and redirect."""
    ctx.check_csrf()
    credentials = dict(ctx.form)
    field = account_field(ctx.settings.rate_limits.account_field, provider.credentials)
    refused = yield from password_attempt(ctx, provider.id, account_of(credentials, field))
    if refused is not None:
        return refused
    assert provider.authorize is not None  # checked at start-up
    try:
        found = yield from invoke(
            "authorize", provider.authorize, credentials=credentials, request=ctx.request
        )
    except AuthError:
        raise
    except Exception as err:
        raise CallbackRouteError(
            err, cause={"provider": provider.id}, hint="authorize-raised"
        ) from err
    if not found:
        raise CredentialsSignin("authorize returned no user")
    user = as_user(found)
    user["id"] = str(user["id"]) if user.get("id") is not None else ctx.random_uuid()
    account = {
        "provider_account_id": user["id"],
        "type": "credentials",
        "provider": provider.id,
    }
    redirect = yield from run_sign_in_callback(
        ctx, user=user, account=account, profile=None, credentials=credentials, email=None
    )
    if redirect is not None:
        return Reply(redirect=redirect)
    return (yield from finish_login(ctx, LoginResult(user=user, account=account)))
