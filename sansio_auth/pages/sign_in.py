"""The sign-in page: a button per OAuth provider, the e-mail form, the credentials forms, the
password form, the passkey forms and their script.

Its context (:func:`sign_in_context`) lists the providers as plain data; every value is
escaped where it is put, and a credentials field keeps only harmless attributes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..config import Theme
from ..i18n import N_, Translator
from ..providers import Provider, WebAuthnProvider
from ._shell import debug_hint, hidden, input_attributes, safe_color, safe_image, shell
from ._webauthn_script import WEBAUTHN_SCRIPT, error_box

SIGN_IN_ERRORS = {
    "OAuthAccountNotLinked": N_(
        "To confirm your identity, sign in with the same account you used originally."
    ),
    "EmailSignin": N_("No sign-in link could be sent. Check the address and try again."),
    "CredentialsSignin": N_("Sign in failed. Check the details you provided are correct."),
    "SessionRequired": N_("Please sign in to access this page."),
    "MissingCSRF": N_("The form expired. Please try again."),
    "TwoFactorExpired": N_("Your sign-in took too long or was interrupted. Please sign in again."),
    "SessionNotFresh": N_("Please sign in again to confirm it is you."),
    "RateLimited": N_("Too many attempts. Wait a few minutes, then try again."),
}
"""What the sign-in page says for each ``?error=`` (Auth.js's words for Auth.js's errors)."""
for _key in (
    "Signin",
    "OAuthSignin",
    "OAuthCallbackError",
    "OAuthCreateAccount",
    "EmailCreateAccount",
    "Callback",
    "AccountNotLinked",
):
    SIGN_IN_ERRORS[_key] = N_("Try signing in with a different account.")
DEFAULT_SIGN_IN_ERROR = N_("Unable to sign in.")

EMAIL_PLACEHOLDER = "email@example.com"
"""The e-mail field's sample address (the same in every language)."""
_SHOWN_TYPES = ("oauth", "oidc", "email", "credentials", "password", "webauthn")


def sign_in_context(
    *,
    providers: Sequence[Provider],
    signin_urls: Mapping[str, str],
    callback_urls: Mapping[str, str],
    csrf_token: str,
    callback_url: str | None,
    error: str | None = None,
    email: str | None = None,
    webauthn_options_urls: Mapping[str, str] | None = None,
    hint: Mapping[str, str] | None = None,
    password_links: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The page's data: each provider it shows a form or a button for (a credentials
    provider with fields; a passkey provider with its options URL in
    ``webauthn_options_urls``), and the password provider's ``forgot``/``signup`` links."""
    options_urls = webauthn_options_urls or {}
    shown = []
    for provider in providers:
        fields: Mapping[str, Any] = {}
        if provider.type == "credentials":
            fields = getattr(provider, "credentials", None) or {}
            if not fields:
                continue
        elif isinstance(provider, WebAuthnProvider):
            if provider.id not in options_urls:
                continue
            fields = provider.form_fields
        elif provider.type not in _SHOWN_TYPES:
            continue
        style = provider.style
        shown.append(
            {
                "id": provider.id,
                "name": provider.name,
                "type": provider.type,
                "signin_url": signin_urls.get(provider.id),
                "callback_url": callback_urls.get(provider.id),
                "options_url": options_urls.get(provider.id),
                "fields": {name: dict(spec) for name, spec in fields.items()},
                "style": None
                if style is None
                else {"logo": style.logo, "bg": style.brand_color or style.bg, "text": style.text},
                "conditional_ui": isinstance(provider, WebAuthnProvider)
                and provider.enable_conditional_ui,
            }
        )
    links = password_links or {}
    return {
        "providers": shown,
        "csrf_token": csrf_token,
        "callback_url": callback_url,
        "error": error,
        "email": email,
        "forgot_password_url": links.get("forgot"),
        "signup_url": links.get("signup"),
        "hint": hint,
    }


def sign_in_page(context: Mapping[str, Any], theme: Theme, _: Translator) -> str:
    """The page of :func:`sign_in_context`'s data."""
    banner = script = ""
    if error := context["error"]:
        message = _(SIGN_IN_ERRORS.get(error, DEFAULT_SIGN_IN_ERROR))
        banner = f'<p class="error">{escape(message)}</p>{debug_hint(context["hint"])}'
    csrf = hidden("csrfToken", context["csrf_token"])
    blocks: list[str] = []
    for provider in context["providers"]:
        kind = provider["type"]
        if kind in ("oauth", "oidc"):
            blocks.append(_oauth_button(provider, csrf, context["callback_url"], _))
        elif kind == "email":
            blocks.append(_email_form(provider, csrf, context["email"], _))
        elif kind == "credentials":
            button = _("Sign in with {provider}", provider=provider["name"])
            blocks.append(_form(provider["callback_url"], csrf, _fields(provider, _), button))
        elif kind == "password":
            blocks.append(_password_form(provider, csrf, context, _))
        elif kind == "webauthn":
            blocks.append(_webauthn_form(provider, csrf, _))
            script = f"<script>{WEBAUTHN_SCRIPT}</script>"
    return shell(_("Sign In"), banner + "<hr>".join(blocks), theme, _, script)


def _form(url: str, csrf: str, fields: str, button: str) -> str:
    return (
        f'<form action="{escape(url)}" method="POST">{csrf}{fields}'
        f'<button type="submit">{escape(button)}</button></form>'
    )


def _oauth_button(
    provider: Mapping[str, Any], csrf: str, callback_url: str | None, _: Translator
) -> str:
    style = provider["style"] or {}
    variables = []
    if bg := safe_color(style.get("bg")):
        variables.append(f"--provider-bg:{bg}")
    if text := safe_color(style.get("text")):
        variables.append(f"--provider-text:{text}")
    logo = safe_image(style.get("logo"))
    logo_html = f'<img src="{escape(logo)}" alt="" loading="lazy">' if logo else ""
    label = _("Sign in with {provider}", provider=provider["name"])
    return (
        f'<form class="provider" action="{escape(provider["signin_url"])}" method="POST">{csrf}'
        f"{hidden('callbackUrl', callback_url)}"
        f'<button type="submit" style="{escape(";".join(variables))}">'
        f"{logo_html}<span>{escape(label)}</span></button></form>"
    )


def _email_form(provider: Mapping[str, Any], csrf: str, email: str | None, _: Translator) -> str:
    field_id = f"input-email-for-{provider['id']}-provider"
    field = (
        f'<label for="{escape(field_id)}">{escape(_("Email"))}</label>'
        f'<input id="{escape(field_id)}" type="email" name="email" '
        f'placeholder="{EMAIL_PLACEHOLDER}" value="{escape(email or "")}" required autofocus>'
    )
    button = _("Sign in with {provider}", provider=provider["name"])
    return _form(provider["signin_url"], csrf, field, button)


def _fields(provider: Mapping[str, Any], _: Translator, **marks: bool) -> str:
    """A label and an ``<input>`` per field; ``marks`` are extra boolean attributes. A label
    is looked up in the catalogue too (an app's own catalogue may name its fields)."""
    out = []
    for name, spec in provider["fields"].items():
        field_id = f"input-{name}-for-{provider['id']}-provider"
        extra = {k: v for k, v in spec.items() if k not in ("label", "name", "id")}
        attributes = input_attributes(
            {"type": "text", **extra, "name": name, "id": field_id, **marks}
        )
        label = str(spec.get("label") or name)
        out.append(
            f'<label for="{escape(field_id)}">{escape(_(label) if label else "")}</label>'
            f"<input {attributes}>"
        )
    return "".join(out)


def _password_form(
    provider: Mapping[str, Any], csrf: str, context: Mapping[str, Any], _: Translator
) -> str:
    """E-mail and password, with the ways to a forgotten password and to a new account."""
    specs = {
        "email": {
            "label": N_("Email"),
            "type": "email",
            "autocomplete": "username",
            "required": True,
            "value": context["email"] or None,
        },
        "password": {
            "label": N_("Password"),
            "type": "password",
            "autocomplete": "current-password",
            "required": True,
        },
    }
    fields = _fields({**provider, "fields": specs}, _)
    links = "".join(
        f'<a class="button" href="{escape(url)}">{escape(_(label))}</a>'
        for url, label in (
            (context["forgot_password_url"], N_("Forgot your password?")),
            (context["signup_url"], N_("Create an account")),
        )
        if url
    )
    button = _("Sign in with {provider}", provider=provider["name"])
    return _form(provider["callback_url"], csrf, fields, button) + links


def _webauthn_form(provider: Mapping[str, Any], csrf: str, _: Translator) -> str:
    """Auth.js's passkey form (``id="<id>-form"``, inputs marked ``data-form-field``), run by
    the page's script; ``data-conditional-ui`` asks it for the autofill request too. Beside
    Auth.js's sign-in button, a sign-up button registers a passkey for the address typed
    (the options route never decides that from whether the address has an account)."""
    conditional = " data-conditional-ui" if provider["conditional_ui"] else ""
    provider_id, name = escape(provider["id"]), provider["name"]
    return (
        f'<form id="{provider_id}-form" action="{escape(provider["callback_url"])}" '
        f'method="POST" data-webauthn-options="{escape(provider["options_url"])}"'
        f"{conditional}>{csrf}"
        f"{_fields(provider, _, **{'data-form-field': True})}{error_box(_)}"
        f'<button id="submitButton-{provider_id}" type="submit">'
        f"{escape(_('Sign in with {provider}', provider=name))}</button>"
        f'<button id="registerButton-{provider_id}" type="submit" name="action" '
        f'value="register">{escape(_("Sign up with {provider}", provider=name))}</button></form>'
    )
