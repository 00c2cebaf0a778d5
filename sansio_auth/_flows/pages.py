"""``GET signin``, ``GET signout``, ``GET verify-request``, ``GET error``: pages or redirects."""

from __future__ import annotations

from .. import pages
from .._context import Context, Reply, add_query
from .._flow import Step
from ..errors import HINTS, UnknownAction
from ..providers import PasswordProvider


def signin_page(ctx: Context) -> Step[Reply]:
    """The built-in sign-in page, or a redirect to ``pages.sign_in``."""
    if ctx.provider_id is not None:
        raise UnknownAction(f"GET signin/{ctx.provider_id} is not a page; POST it to sign in")
    settings = ctx.settings
    callback_url = yield from ctx.callback_url()
    error = ctx.query.get("error") or None
    if settings.pages.sign_in is not None:
        params = {"callbackUrl": callback_url}
        if error:
            params["error"] = error
            params.update(_hint_param(ctx))
        return Reply(redirect=add_query(settings.pages.sign_in, params))
    providers = settings.providers
    context = pages.sign_in_context(
        providers=providers,
        signin_urls={p.id: ctx.url("signin", p.id) for p in providers},
        callback_urls={p.id: ctx.url("callback", p.id) for p in providers},
        csrf_token=ctx.csrf_token(),
        callback_url=callback_url,
        error=error,
        email=ctx.query.get("email"),
        webauthn_options_urls={
            p.id: ctx.url("webauthn-options", p.id) for p in providers if p.type == "webauthn"
        },
        hint=_hint(ctx),
        password_links=_password_links(ctx),
    )
    return ctx.page_reply("signin", context)


def signout_page(ctx: Context) -> Step[Reply]:
    """The sign-out confirmation page, or a redirect to ``pages.sign_out``."""
    settings = ctx.settings
    if settings.pages.sign_out is not None:
        return Reply(redirect=settings.pages.sign_out)
    yield from ctx.callback_url()
    context = {"action_url": ctx.url("signout"), "csrf_token": ctx.csrf_token()}
    return ctx.page_reply("signout", context)


def verify_request_page(ctx: Context) -> Step[Reply]:
    """'Check your email', or a redirect to ``pages.verify_request`` with the same query."""
    settings = ctx.settings
    if settings.pages.verify_request is not None:
        return Reply(redirect=add_query(settings.pages.verify_request, ctx.query))
    yield from ()
    context = {"kind": ctx.query.get("type"), "site_url": ctx.origin}
    return ctx.page_reply("verify-request", context)


def error_page(ctx: Context) -> Step[Reply]:
    """The error page for ``?error=``, or a redirect to ``pages.error``."""
    settings = ctx.settings
    error = ctx.query.get("error") or None
    if settings.pages.error is not None:
        params = {"error": error, **_hint_param(ctx)} if error else {}
        return Reply(redirect=add_query(settings.pages.error, params))
    yield from ()
    hint = _hint(ctx)
    context = {
        "error": error,
        "site_url": ctx.origin,
        "signin_url": ctx.url("signin"),
        "hint": hint,
    }
    return ctx.page_reply("error", context, status=pages.error_status(error))


def _hint(ctx: Context) -> dict[str, str] | None:
    """With ``debug=True``, the :data:`~sansio_auth.errors.HINTS` row ``?hint=`` names:
    ``{"cause", "fix"}``."""
    hint = HINTS.get(ctx.query.get("hint", "")) if ctx.settings.debug else None
    return None if hint is None else hint._asdict()


def _hint_param(ctx: Context) -> dict[str, str]:
    """``?hint=`` passed on to a custom page, with ``debug=True`` and a known row."""
    return {"hint": ctx.query["hint"]} if _hint(ctx) is not None else {}


def _password_links(ctx: Context) -> dict[str, str]:
    """The sign-in page's links of the password provider: reset, and sign-up when open."""
    provider = next((p for p in ctx.settings.providers if isinstance(p, PasswordProvider)), None)
    if provider is None:
        return {}
    links = {"forgot": ctx.url("forgot-password")}
    if provider.sign_up:
        links["signup"] = ctx.url("signup")
    return links
