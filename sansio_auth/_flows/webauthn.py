"""``GET webauthn-options/<id>`` and ``POST callback/<webauthn id>``: passkey sign-in.

The options route decides between registration and authentication (:func:`infer_action`),
answers the options JSON and sets the challenge cookie. Signed out, the answer never
depends on whether the e-mail address given has an account (stricter than Auth.js, which
registers an unknown address, refuses to register a known one and lists a known one's
credential ids: anyone could tell who has an account). The
callback consumes that cookie (a response is good for one try), verifies the
browser's response, and only then touches the database: a registration creates the
user and account (or links the account to the signed-in user) and stores the
authenticator; an authentication moves the signature counter forward. Then the
session is issued as for any other sign-in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import msgspec

from .. import _webauthn as ceremony
from .._context import Context, Reply, json_reply
from .._flow import Step, call_adapter, invoke, log_warning
from ..errors import AuthError, InvalidProvider, SessionNotFresh, WebAuthnVerificationError
from ..oauth.checks import b64url
from ..providers import WebAuthnProvider
from .limits import attempt
from .login import finish_login, handle_login, run_sign_in_callback, undo_sign_up
from .session_list import check_operation, current_session
from .strategies import LoginResult

Decision = Literal["register", "authenticate"]
ACCOUNT_TYPE = "webauthn"


def webauthn_provider(ctx: Context) -> WebAuthnProvider | None:
    """The first WebAuthn provider configured (the one passkeys are registered with as a
    second factor and from the security page), if any."""
    return next((p for p in ctx.settings.providers if isinstance(p, WebAuthnProvider)), None)


def webauthn_options(ctx: Context) -> Step[Reply]:
    """The registration or authentication options, and the challenge cookie."""
    provider = ctx.settings.providers_by_id.get(ctx.provider_id or "")
    if not isinstance(provider, WebAuthnProvider):
        raise InvalidProvider(f"Provider {ctx.provider_id!r} is not a WebAuthn provider")
    action = ctx.query.get("action")
    if action not in (None, "register", "authenticate"):
        return json_reply({"error": "Invalid action"}, status=400)
    session = yield from current_session(ctx)
    current = session.user if session is not None and session.stored else None
    if session is not None and current is not None and action == "register":
        try:  # a new way in for the signed-in user: a fresh sign-in only
            check_operation(ctx, session, "link-account")
        except SessionNotFresh as err:
            return json_reply({"error": err.type, "message": err.message}, status=403)
    email = ctx.query.get("email")
    user = current if current is not None else ({"email": email} if email else None)
    decision = infer_action(action, signed_in=current is not None, has_user=user is not None)
    rp = yield from relying_party(ctx, provider)
    challenge = b64url(ctx.entropy(32))
    if decision == "authenticate":
        allow = None
        if current is not None:  # the signed-in user's own passkeys: nothing to reveal
            allow = yield from _authenticators(ctx, current)
        options = ceremony.authentication_options(provider, rp, challenge=challenge, allow=allow)
        register_data = None
    elif decision == "register" and user is not None and isinstance(user.get("email"), str):
        exclude = (yield from _authenticators(ctx, current)) if current is not None else []
        register_data = _register_data(user)
        options = ceremony.registration_options(
            provider,
            rp,
            challenge=challenge,
            user_handle=ctx.random_hex(32),
            user=register_data,
            exclude=exclude,
        )
    else:
        return json_reply({"error": "Invalid request"}, status=400)
    payload: dict[str, Any] = {"challenge": challenge}
    if register_data is not None:
        payload["registerData"] = register_data
    settings = ctx.settings
    ctx.out_cookies.set(
        ceremony.challenge_cookie(
            ctx.cookie_specs.webauthn_challenge,
            payload,
            provider_id=provider.id,
            secrets=settings.secrets,
            now=ctx.now,
            entropy=ctx.entropy,
        )
    )
    return json_reply({"action": decision, "options": options})


def infer_action(action: str | None, *, signed_in: bool, has_user: bool) -> Decision | None:
    """What to do, or ``None`` (an invalid request): Auth.js's ``inferWebAuthnOptions``
    without looking the e-mail address up.

    ``authenticate`` is always allowed; ``register`` needs a user: the signed-in one (a
    second passkey), or the e-mail address given (a new account; an address that has one
    already is refused at the callback, after the ceremony, as Auth.js's linking rules
    say). Without an action a signed-out browser authenticates; signed in, an action is
    required.
    """
    if action == "authenticate":
        return "authenticate"
    if action == "register":
        return "register" if has_user else None
    if action is None and not signed_in:
        return "authenticate"
    return None


def relying_party(ctx: Context, provider: WebAuthnProvider) -> Step[ceremony.RelyingParty]:
    """The relying party of this request: ``get_relaying_party``'s, else the provider's
    ``relying_party`` over the request's origin."""
    if provider.get_relaying_party is None:
        return ceremony.relying_party(provider, ctx.origin)
    found = yield from invoke(
        "get_relaying_party",
        provider.get_relaying_party,
        provider=provider,
        request=ctx.request,
        origin=ctx.origin,
    )
    return ceremony.as_relying_party(found)


def webauthn_callback(ctx: Context, provider: WebAuthnProvider) -> Step[Reply]:
    """Verify the posted response (``action`` and ``data``) and sign in (within the client's
    rate limit)."""
    ctx.check_csrf()
    refused = yield from attempt(ctx, provider.id, client_rule="passkey_per_client")
    if refused is not None:
        return refused
    action = ctx.form.get("action")
    if action not in ("authenticate", "register"):
        raise AuthError("Invalid action parameter")
    response = _response_data(ctx.form.get("data"))
    spec = ctx.cookie_specs.webauthn_challenge
    if spec.name in ctx.cookies:
        ctx.out_cookies.set(spec.delete())  # used up, whatever happens next
    payload = ceremony.read_challenge(
        ctx.cookies, spec, provider_id=provider.id, secrets=ctx.settings.secrets, now=ctx.now
    )
    rp = yield from relying_party(ctx, provider)
    if action == "authenticate":
        user, account = yield from _authenticate(ctx, provider, rp, response, payload)
        new = None
    else:
        user, account, new = yield from _register(ctx, provider, rp, response, payload)
    redirect = yield from run_sign_in_callback(
        ctx, user=user, account=account, profile=None, credentials=None, email=None
    )
    if redirect is not None:
        return Reply(redirect=redirect)
    login = yield from handle_login(ctx, provider, user=user, account=account)
    if new is not None:
        record = {**new.authenticator, "user_id": login.user["id"]}
        try:
            yield from call_adapter(ctx.settings.adapter, "create_authenticator", record)
        except Exception:
            yield from _undo(ctx, login, account)
            raise
    return (yield from finish_login(ctx, login))


def _authenticate(
    ctx: Context,
    provider: WebAuthnProvider,
    rp: ceremony.RelyingParty,
    response: Mapping[str, Any],
    payload: Mapping[str, Any],
) -> Step[tuple[dict[str, Any], dict[str, Any]]]:
    credential_id = _credential_id(response)
    adapter = ctx.settings.adapter
    authenticator = yield from call_adapter(adapter, "get_authenticator", credential_id)
    if not authenticator:
        raise WebAuthnVerificationError(
            "no authenticator has this credential id", cause={"credential_id": credential_id}
        )
    try:
        counter = ceremony.verify_authentication(
            provider, rp, response, payload["challenge"], authenticator
        )
    except WebAuthnVerificationError as err:
        if err.cause.get("cloned"):
            yield from log_warning("webauthn-cloned-authenticator", str(err))
        raise
    stored_id = str(authenticator["credential_id"])
    yield from call_adapter(adapter, "update_authenticator_counter", stored_id, counter)
    account_id = str(authenticator["provider_account_id"])
    account = yield from call_adapter(adapter, "get_account", provider.id, account_id)
    if not account:
        raise AuthError("WebAuthn account not found", cause={"credential_id": stored_id})
    user = yield from call_adapter(adapter, "get_user", account["user_id"])
    if not user:
        raise AuthError("WebAuthn user not found", cause={"credential_id": stored_id})
    return dict(user), _account(provider, account_id)


def _register(
    ctx: Context,
    provider: WebAuthnProvider,
    rp: ceremony.RelyingParty,
    response: Mapping[str, Any],
    payload: Mapping[str, Any],
) -> Step[tuple[dict[str, Any], dict[str, Any], ceremony.NewCredential]]:
    register_data = payload.get("registerData")
    if not isinstance(register_data, Mapping) or not isinstance(register_data.get("email"), str):
        raise AuthError("Missing user registration data in WebAuthn challenge cookie")
    new = ceremony.verify_registration(provider, rp, response, payload["challenge"])
    known = yield from call_adapter(ctx.settings.adapter, "get_authenticator", new.credential_id)
    if known:
        raise WebAuthnVerificationError(
            "this credential is registered already", cause={"credential_id": new.credential_id}
        )
    user = {k: v for k, v in register_data.items() if k in ("email", "name", "image")}
    user["id"] = ctx.random_uuid()
    return user, _account(provider, new.credential_id), new


def _undo(ctx: Context, login: LoginResult, account: Mapping[str, Any]) -> Step[None]:
    """A registration whose authenticator could not be stored leaves nothing behind: the
    user it created, or the account it linked to the signed-in user."""
    if login.is_new_user:
        yield from undo_sign_up(ctx, str(login.user["id"]))
        return
    linked = any(name == "link_account" for name, _ in login.events)
    if linked and callable(getattr(ctx.settings.adapter, "unlink_account", None)):
        yield from call_adapter(
            ctx.settings.adapter,
            "unlink_account",
            account["provider"],
            account["provider_account_id"],
        )


def _authenticators(ctx: Context, user: Mapping[str, Any]) -> Step[list[dict[str, Any]]]:
    found = yield from call_adapter(
        ctx.settings.adapter, "list_authenticators_by_user_id", str(user["id"])
    )
    return [dict(a) for a in found or []]


def _register_data(user: Mapping[str, Any]) -> dict[str, Any]:
    """What the challenge cookie keeps of the user who registers (Auth.js's ``registerData``)."""
    return {k: user[k] for k in ("id", "email", "name", "image") if user.get(k) is not None}


def _account(provider: WebAuthnProvider, credential_id: str) -> dict[str, Any]:
    return {"provider": provider.id, "type": ACCOUNT_TYPE, "provider_account_id": credential_id}


def _response_data(value: Any) -> dict[str, Any]:
    """The browser's response: ``data`` is a JSON string (a JSON body may nest the object)."""
    if isinstance(value, str):
        try:
            value = msgspec.json.decode(value)
        except msgspec.DecodeError as err:
            raise AuthError("Invalid WebAuthn response: `data` is not JSON") from err
    if not isinstance(value, dict) or not isinstance(value.get("id"), str):
        raise AuthError("Invalid WebAuthn response: `data` has no credential id")
    if not isinstance(value.get("response"), dict):
        raise AuthError("Invalid WebAuthn response: `data` has no `response`")
    return value


def _credential_id(response: Mapping[str, Any]) -> str:
    """The credential id as stored: standard base64 (Auth.js)."""
    try:
        return ceremony.to_base64(ceremony.from_base64(str(response["id"])))
    except ValueError as err:
        raise WebAuthnVerificationError("the credential id is not base64url") from err
