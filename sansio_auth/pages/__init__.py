"""The built-in HTML pages: sign-in, sign-out, verify-request and error (and, in
:mod:`.security`, the security page).

Every interpolated value goes through :func:`html.escape`; colours and image
URLs are also checked so that a theme value cannot break out of its attribute.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from ..config import Theme
from ..errors import Hint
from ..providers import Provider, WebAuthnProvider
from ._style import CSS
from ._webauthn_script import WEBAUTHN_SCRIPT as WEBAUTHN_SCRIPT
from .security import security_page as security_page

_SAFE_COLOR = re.compile(r"^[#a-zA-Z0-9(),.% -]{1,64}$")
_SAFE_IMAGE = re.compile(r"^(https?://|/)[^\s\"'<>]*$|^data:image/[a-z+]+;base64,[A-Za-z0-9+/=]+$")

SIGN_IN_ERRORS = {
    "OAuthAccountNotLinked": "To confirm your identity, sign in with the same account you "
    "used originally.",
    "EmailSignin": "No sign-in link could be sent. Check the address and try again.",
    "CredentialsSignin": "Sign in failed. Check the details you provided are correct.",
    "SessionRequired": "Please sign in to access this page.",
    "MissingCSRF": "The form expired. Please try again.",
    "TwoFactorExpired": "Your sign-in took too long or was interrupted. Please sign in again.",
    "SessionNotFresh": "Please sign in again to confirm it is you.",
    "RateLimited": "Too many attempts. Wait a few minutes, then try again.",
}
_TRY_ANOTHER = "Try signing in with a different account."
for _key in (
    "Signin",
    "OAuthSignin",
    "OAuthCallbackError",
    "OAuthCreateAccount",
    "EmailCreateAccount",
    "Callback",
    "AccountNotLinked",
):
    SIGN_IN_ERRORS[_key] = _TRY_ANOTHER
DEFAULT_SIGN_IN_ERROR = "Unable to sign in."

ERROR_PAGES: Mapping[str, tuple[int, str, str]] = {
    "Configuration": (
        500,
        "Server error",
        "There is a problem with the server configuration. "
        "Check the server logs for more information.",
    ),
    "AccessDenied": (403, "Access Denied", "You do not have permission to sign in."),
    "Verification": (
        403,
        "Unable to sign in",
        "The sign in link is no longer valid. "
        "It may have been used already or it may have expired.",
    ),
    "WebAuthnVerificationError": (
        200,
        "Unable to sign in",
        "The passkey could not be verified. Try again, or use another way to sign in.",
    ),
}
_LINK_TO_SIGN_IN = frozenset({"AccessDenied", "Verification", "WebAuthnVerificationError"})
DEFAULT_ERROR_PAGE = (200, "Error", "An error occurred while signing in.")


def _color(value: str | None) -> str | None:
    return value if value and _SAFE_COLOR.match(value) else None


def _image(value: str | None) -> str | None:
    return value if value and _SAFE_IMAGE.match(value) else None


_INPUT_ATTRIBUTES = frozenset(
    {
        "type",
        "name",
        "id",
        "value",
        "placeholder",
        "autocomplete",
        "autofocus",
        "required",
        "minlength",
        "maxlength",
        "pattern",
        "min",
        "max",
        "step",
        "size",
        "inputmode",
        "spellcheck",
        "readonly",
        "disabled",
        "title",
        "dir",
        "lang",
    }
)
_INPUT_TYPES = frozenset(
    {"text", "password", "email", "tel", "number", "url", "search", "date", "hidden"}
)


def _attrs(values: Mapping[str, Any]) -> str:
    """An ``<input>``'s attributes: only harmless ones (no URLs, scripts, styles or forms)."""
    parts = []
    for raw_name, value in values.items():
        name = raw_name.lower()
        if value is None or value is False:
            continue
        if name not in _INPUT_ATTRIBUTES and not re.fullmatch(r"(aria|data)-[a-z0-9-]+", name):
            continue
        if name == "type" and str(value).lower() not in _INPUT_TYPES:
            value = "text"
        parts.append(escape(name) if value is True else f'{escape(name)}="{escape(str(value))}"')
    return " ".join(parts)


def _shell(title: str, body: str, theme: Theme, script: str = "") -> str:
    style = []
    if color := _color(theme.brand_color):
        style.append(f"--brand-color:{color}")
    if color := _color(theme.button_text):
        style.append(f"--button-text-color:{color}")
    logo = _image(theme.logo)
    logo_html = f'<img class="logo" src="{escape(logo)}" alt="">' if logo else ""
    scheme = theme.color_scheme if theme.color_scheme in ("auto", "dark", "light") else "auto"
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head>"
        f'<body class="theme-{scheme}" style="{escape(";".join(style))}">'
        f'<div class="page">{logo_html}<div class="card">{body}</div></div>{script}</body></html>'
    )


def _hidden(name: str, value: str | None) -> str:
    if value is None:
        return ""
    return f'<input type="hidden" name="{escape(name)}" value="{escape(value)}">'


def debug_hint(hint: Hint | None) -> str:
    """With ``debug=True``: what most likely went wrong and its likely fix (fixed texts of
    :data:`~sansio_auth.errors.HINTS`, never a value of the request)."""
    if hint is None:
        return ""
    return (
        '<div class="debug"><p><b>Debug:</b> the cause and the likely fix (shown because '
        f"<code>debug=True</code>)</p><p>{_code_spans(hint.cause)}</p>"
        f"<p><b>Likely fix:</b> {_code_spans(hint.fix)}</p></div>"
    )


def _code_spans(text: str) -> str:
    """``text`` escaped, with its backquoted parts as ``<code>``."""
    parts = escape(text).split("`")
    return "".join(f"<code>{part}</code>" if i % 2 else part for i, part in enumerate(parts))


def sign_in_page(
    *,
    providers: Sequence[Provider],
    signin_urls: Mapping[str, str],
    callback_urls: Mapping[str, str],
    csrf_token: str,
    callback_url: str | None,
    theme: Theme,
    error: str | None = None,
    email: str | None = None,
    webauthn_options_urls: Mapping[str, str] | None = None,
    hint: Hint | None = None,
    password_links: Mapping[str, str] | None = None,
) -> str:
    """The sign-in page: a button per OAuth provider, the e-mail form, the credentials forms,
    the password form (with ``password_links``: ``forgot`` and, when open, ``signup``), the
    passkey forms (their options at ``webauthn_options_urls[id]``) and their script."""
    blocks: list[str] = []
    banner = script = ""
    if error:
        banner = f'<p class="error">{escape(SIGN_IN_ERRORS.get(error, DEFAULT_SIGN_IN_ERROR))}</p>'
        banner += debug_hint(hint)
    for provider in providers:
        csrf = _hidden("csrfToken", csrf_token)
        if provider.type in ("oauth", "oidc"):
            blocks.append(_oauth_button(provider, signin_urls[provider.id], csrf, callback_url))
        elif provider.type == "email":
            field_id = f"input-email-for-{provider.id}-provider"
            blocks.append(
                f'<form action="{escape(signin_urls[provider.id])}" method="POST">{csrf}'
                f'<label for="{escape(field_id)}">Email</label>'
                f'<input id="{escape(field_id)}" type="email" name="email" '
                f'placeholder="email@example.com" value="{escape(email or "")}" required autofocus>'
                f'<button type="submit">Sign in with {escape(provider.name)}</button></form>'
            )
        elif provider.type == "credentials" and getattr(provider, "credentials", None):
            blocks.append(_credentials_form(provider, callback_urls[provider.id], csrf))
        elif provider.type == "password":
            url = callback_urls[provider.id]
            blocks.append(_password_form(provider, url, csrf, email, password_links or {}))
        elif isinstance(provider, WebAuthnProvider) and webauthn_options_urls:
            options_url = webauthn_options_urls[provider.id]
            blocks.append(_webauthn_form(provider, callback_urls[provider.id], options_url, csrf))
            script = f"<script>{WEBAUTHN_SCRIPT}</script>"
    body = banner + _join(blocks)
    return _shell("Sign In", body, theme, script)


def _join(blocks: Iterable[str]) -> str:
    return "<hr>".join(blocks)


def _oauth_button(provider: Provider, url: str, csrf: str, callback_url: str | None) -> str:
    style = provider.style
    variables = []
    if style is not None:
        if bg := _color(style.brand_color or style.bg):
            variables.append(f"--provider-bg:{bg}")
        if text := _color(style.text):
            variables.append(f"--provider-text:{text}")
    logo = _image(style.logo if style else None)
    logo_html = f'<img src="{escape(logo)}" alt="" loading="lazy">' if logo else ""
    return (
        f'<form class="provider" action="{escape(url)}" method="POST">{csrf}'
        f"{_hidden('callbackUrl', callback_url)}"
        f'<button type="submit" style="{escape(";".join(variables))}">'
        f"{logo_html}<span>Sign in with {escape(provider.name)}</span></button></form>"
    )


def _fields(provider: Provider, specs: Mapping[str, Mapping[str, Any]], **marks: bool) -> str:
    """A label and an ``<input>`` per field; ``marks`` are extra boolean attributes."""
    fields = []
    for name, spec in specs.items():
        field_id = f"input-{name}-for-{provider.id}-provider"
        extra = {k: v for k, v in spec.items() if k not in ("label", "name", "id")}
        attrs = _attrs({"type": "text", **extra, "name": name, "id": field_id, **marks})
        label = str(spec.get("label") or name)
        fields.append(f'<label for="{escape(field_id)}">{escape(label)}</label><input {attrs}>')
    return "".join(fields)


def _credentials_form(provider: Provider, url: str, csrf: str) -> str:
    credentials: Mapping[str, Mapping[str, Any]] = getattr(provider, "credentials", {})
    return (
        f'<form action="{escape(url)}" method="POST">{csrf}{_fields(provider, credentials)}'
        f'<button type="submit">Sign in with {escape(provider.name)}</button></form>'
    )


def _password_form(
    provider: Provider, url: str, csrf: str, email: str | None, links: Mapping[str, str]
) -> str:
    """E-mail and password, with the ways to a forgotten password and to a new account."""
    fields = _fields(
        provider,
        {
            "email": {
                "label": "Email",
                "type": "email",
                "autocomplete": "username",
                "required": True,
                "value": email or None,
            },
            "password": {
                "label": "Password",
                "type": "password",
                "autocomplete": "current-password",
                "required": True,
            },
        },
    )
    extra = "".join(
        f'<a class="button" href="{escape(links[key])}">{label}</a>'
        for key, label in (("forgot", "Forgot your password?"), ("signup", "Create an account"))
        if key in links
    )
    return (
        f'<form action="{escape(url)}" method="POST">{csrf}{fields}'
        f'<button type="submit">Sign in with {escape(provider.name)}</button></form>{extra}'
    )


def _webauthn_form(provider: WebAuthnProvider, url: str, options_url: str, csrf: str) -> str:
    """Auth.js's passkey form (``id="<id>-form"``, inputs marked ``data-form-field``), run by
    the page's script; ``data-conditional-ui`` asks it for the autofill request too. Beside
    Auth.js's sign-in button, a sign-up button registers a passkey for the address typed
    (the options route never decides that from whether the address has an account)."""
    conditional = " data-conditional-ui" if provider.enable_conditional_ui else ""
    return (
        f'<form id="{escape(provider.id)}-form" action="{escape(url)}" method="POST" '
        f'data-webauthn-options="{escape(options_url)}"{conditional}>{csrf}'
        f"{_fields(provider, provider.form_fields, **{'data-form-field': True})}"
        '<p class="error" role="alert" data-webauthn-error hidden></p>'
        f'<button id="submitButton-{escape(provider.id)}" type="submit">'
        f"Sign in with {escape(provider.name)}</button>"
        f'<button id="registerButton-{escape(provider.id)}" type="submit" name="action" '
        f'value="register">Sign up with {escape(provider.name)}</button></form>'
    )


def sign_out_page(*, action_url: str, csrf_token: str, theme: Theme) -> str:
    """The sign-out confirmation: a form that posts back to ``action_url``."""
    body = (
        "<h1>Signout</h1><p>Are you sure you want to sign out?</p>"
        f'<form action="{escape(action_url)}" method="POST">{_hidden("csrfToken", csrf_token)}'
        '<button type="submit">Sign out</button></form>'
    )
    return _shell("Sign Out", body, theme)


VERIFY_REQUEST_TEXTS = {
    "verify-email": "A link to verify your email address has been sent to it.",
    "reset": "If an account uses this address, a link to choose a new password has been "
    "sent to it.",
}
"""What the 'check your email' page says for each ``type`` of the account e-mails."""


def verify_request_page(*, origin: str, theme: Theme, kind: str | None = None) -> str:
    """'Check your email' (for ``kind``: a sign-in link by default), with a link back."""
    host = origin.partition("://")[2]
    text = VERIFY_REQUEST_TEXTS.get(
        kind or "", "A sign in link has been sent to your email address."
    )
    body = (
        f"<h1>Check your email</h1><p>{escape(text)}</p>"
        f'<a class="button" href="{escape(origin)}">{escape(host)}</a>'
    )
    return _shell("Verify Request", body, theme)


def error_page(
    *, error: str | None, origin: str, signin_url: str, theme: Theme, hint: Hint | None = None
) -> tuple[int, str]:
    """The error page for ``error`` and its status (500, 403 or 200); with ``hint`` (debug
    only), the likely cause and fix under it."""
    status, heading, message = ERROR_PAGES.get(error or "", DEFAULT_ERROR_PAGE)
    if error in _LINK_TO_SIGN_IN:
        link = f'<a class="button" href="{escape(signin_url)}">Sign in</a>'
    else:
        link = f'<a class="button" href="{escape(origin)}">{escape(origin.partition("://")[2])}</a>'
    body = f"<h1>{escape(heading)}</h1><p>{escape(message)}</p>{debug_hint(hint)}{link}"
    return status, _shell("Error", body, theme)


def rate_limited_page(*, retry_after: int, signin_url: str, theme: Theme) -> str:
    """'Too many attempts': when to try again, and a link back to the sign-in page."""
    minutes = max(1, -(-retry_after // 60))
    wait = f"{minutes} minute{'s' if minutes > 1 else ''}"
    body = (
        "<h1>Too many attempts</h1>"
        f"<p>Sign-in is paused for this account or network. Try again in {wait}.</p>"
        f'<a class="button" href="{escape(signin_url)}">Sign in</a>'
    )
    return _shell("Too Many Attempts", body, theme)
