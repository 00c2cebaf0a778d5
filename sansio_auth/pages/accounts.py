"""The built-in pages of password accounts: sign-up, forgotten password, new password, change
of password and of address, and the notices between them.

Every value is escaped; every form carries the CSRF token. A form shown again after an error
keeps what was typed, except passwords.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from ..config import Theme
from ..i18n import N_, Translator
from ._shell import banner, hidden, link_button, shell

MESSAGES = {
    "missing": N_("Enter a password."),
    "too_short": N_("Use a longer password: at least {min} characters."),
    "too_long": N_("That password is too long: at most {max} characters."),
    "common": N_(
        "That password is too common: it is among the first ones attackers try. "
        "Choose another one (a few unrelated words make a strong one)."
    ),
    "breached": N_("That password appears in a known data breach. Choose another one."),
    "invalid_email": N_("Enter a valid email address."),
    "wrong_password": N_("Your current password is not correct."),
    "no_password": N_(
        "Your account has no password yet: set one from the sign-in page (“Forgot your password?”)."
    ),
    "same_email": N_("That is your current address."),
    "sign_up_closed": N_("New accounts cannot be created here."),
    "MissingCSRF": N_("The form expired. Please try again."),
    "EmailSignin": N_("The email could not be sent just now. Please try again in a few minutes."),
}
"""What each form error ``code`` says (``{min}``/``{max}``: the password lengths)."""
DEFAULT_MESSAGE = N_("Something went wrong. Please try again.")


def message(code: str | None, _: Translator, *, min_length: int = 8, max_length: int = 1024) -> str:
    """The sentence for form error ``code`` (empty for none)."""
    if not code:
        return ""
    return _(MESSAGES.get(code, DEFAULT_MESSAGE), min=min_length, max=max_length)


def _input(
    name: str, label: str, kind: str = "text", value: str = "", *, required: bool = True,
    **attrs: str,
) -> str:  # fmt: skip
    extra = "".join(f' {escape(k.replace("_", "-"))}="{escape(v)}"' for k, v in attrs.items())
    shown = f' value="{escape(value)}"' if value else ""
    return (
        f'<label for="input-{escape(name)}">{escape(label)}</label>'
        f'<input id="input-{escape(name)}" type="{escape(kind)}" name="{escape(name)}"'
        f"{shown}{extra}{' required' if required else ''}>"
    )


def _form(action: str, csrf: str, body: str, button: str) -> str:
    return (
        f'<form action="{escape(action)}" method="POST">{hidden("csrfToken", csrf)}{body}'
        f'<button type="submit">{escape(button)}</button></form>'
    )


def back_link(url: str | None, _: Translator) -> str:
    """The way back to the security page, where a signed-in user came from."""
    return link_button(url, _("Back to security settings")) if url else ""


def _lengths(context: Mapping[str, Any]) -> dict[str, int]:
    return {"min_length": context["min_length"], "max_length": context["max_length"]}


def sign_up_page(context: Mapping[str, Any], theme: Theme, _: Translator) -> str:
    """Create an account: name, address, password."""
    body = (
        _input("name", _("Name"), value=context["name"], autocomplete="name", required=False)
        + _input("email", _("Email"), "email", context["email"], autocomplete="email")
        + _input(
            "password",
            _("Password"),
            "password",
            autocomplete="new-password",
            minlength=str(context["min_length"]),
        )
    )
    title = _("Create an account")
    return shell(
        title,
        f"<h1>{escape(title)}</h1>"
        + banner(message(context["error"], _, **_lengths(context)))
        + _form(context["action_url"], context["csrf_token"], body, _("Create account"))
        + link_button(context["signin_url"], _("I have an account: sign in")),
        theme,
        _,
    )


def forgot_page(context: Mapping[str, Any], theme: Theme, _: Translator) -> str:
    """Ask for a reset link."""
    body = _input("email", _("Email"), "email", context["email"], autocomplete="email")
    title = _("Reset your password")
    return shell(
        title,
        f"<h1>{escape(title)}</h1>"
        f"<p>{escape(_('We will email you a link to choose a new password.'))}</p>"
        + banner(message(context["error"], _))
        + _form(context["action_url"], context["csrf_token"], body, _("Send reset link")),
        theme,
        _,
    )


def reset_page(context: Mapping[str, Any], theme: Theme, _: Translator) -> str:
    """Choose a new password (the link's token travels in the form, used on submit)."""
    body = (
        hidden("token", context["token"])
        + hidden("email", context["email"])
        + _input(
            "password",
            _("New password"),
            "password",
            autocomplete="new-password",
            minlength=str(context["min_length"]),
        )
    )
    title = _("Choose a new password")
    return shell(
        title,
        f"<h1>{escape(title)}</h1>"
        + banner(message(context["error"], _, **_lengths(context)))
        + _form(context["action_url"], context["csrf_token"], body, _("Set password")),
        theme,
        _,
    )


def change_password_page(context: Mapping[str, Any], theme: Theme, _: Translator) -> str:
    """Change the password: the current one, then the new one."""
    body = _input(
        "current_password", _("Current password"), "password", autocomplete="current-password"
    ) + _input(
        "new_password",
        _("New password"),
        "password",
        autocomplete="new-password",
        minlength=str(context["min_length"]),
    )
    title = _("Change your password")
    return shell(
        title,
        f"<h1>{escape(title)}</h1>"
        f"<p>{escape(_('Your other devices will be signed out.'))}</p>"
        + banner(message(context["error"], _, **_lengths(context)))
        + _form(context["action_url"], context["csrf_token"], body, _("Change password"))
        + back_link(context["security_url"], _),
        theme,
        _,
    )


def change_email_page(context: Mapping[str, Any], theme: Theme, _: Translator) -> str:
    """Change the address: the new one (confirmed by a link sent to it) and the password."""
    body = _input("email", _("New email"), "email", context["email"], autocomplete="email")
    if context["asks_password"]:
        body += _input("password", _("Password"), "password", autocomplete="current-password")
    title = _("Change your email")
    now = _(
        "Now: {email}. The new address takes effect once you follow the link we send to it.",
        email=context["current_email"],
    )
    return shell(
        title,
        f"<h1>{escape(title)}</h1><p>{escape(now)}</p>"
        + banner(message(context["error"], _))
        + _form(context["action_url"], context["csrf_token"], body, _("Send link"))
        + back_link(context["security_url"], _),
        theme,
        _,
    )


NOTICES: Mapping[str, tuple[str, str, str]] = {
    "password-changed": (
        N_("Password changed"),
        N_("Your other devices were signed out."),
        N_("Continue"),
    ),
    "password-reset": (
        N_("Password changed"),
        N_("Your new password is set, and every device was signed out."),
        N_("Sign in"),
    ),
    "email-link-sent": (
        N_("Check your email"),
        N_("Follow the link we sent to the new address to start using it."),
        N_("Continue"),
    ),
    "email-changed": (
        N_("Email address changed"),
        N_("Your account now uses this address."),
        N_("Sign in"),
    ),
    "email-verified": (
        N_("Email address verified"),
        N_("You can sign in now."),
        N_("Sign in"),
    ),
    "two-factor-off": (
        N_("Two-factor authentication is off"),
        N_("Signing in needs only your first factor now."),
        N_("Set it up again"),
    ),
}
"""Each notice's title, text and the label of its one link."""


def notice_page(context: Mapping[str, Any], theme: Theme, _: Translator) -> str:
    """A short notice (``notice``, a key of :data:`NOTICES`) with one way on."""
    title, text, label = (_(part) for part in NOTICES[context["notice"]])
    body = f"<h1>{escape(title)}</h1><p>{escape(text)}</p>{link_button(context['link_url'], label)}"
    return shell(title, body, theme, _)
