"""The built-in pages of password accounts (not in Auth.js): sign-up, forgotten password, new
password, change of password and of address, and the notices between them.

Every value is escaped; every form carries the CSRF token. A form shown again after an error
keeps what was typed, except passwords.
"""

from __future__ import annotations

from html import escape

from ..config import Theme
from . import _hidden, _shell

MESSAGES = {
    "missing": "Enter a password.",
    "too_short": "Use a longer password: at least {min} characters.",
    "too_long": "That password is too long: at most {max} characters.",
    "common": "That password is too common: it is among the first ones attackers try. "
    "Choose another one (a few unrelated words make a strong one).",
    "breached": "That password appears in a known data breach. Choose another one.",
    "invalid_email": "Enter a valid email address.",
    "wrong_password": "Your current password is not correct.",
    "no_password": "Your account has no password yet: set one from the sign-in page "
    "(“Forgot your password?”).",
    "same_email": "That is your current address.",
    "sign_up_closed": "New accounts cannot be created here.",
    "MissingCSRF": "The form expired. Please try again.",
    "EmailSignin": "The email could not be sent just now. Please try again in a few minutes.",
}
"""What each form error ``code`` says (``{min}``/``{max}``: the password lengths)."""
DEFAULT_MESSAGE = "Something went wrong. Please try again."


def message(code: str | None, *, min_length: int = 8, max_length: int = 1024) -> str:
    """The sentence for form error ``code`` (empty for none)."""
    if not code:
        return ""
    return MESSAGES.get(code, DEFAULT_MESSAGE).format(min=min_length, max=max_length)


def _banner(text: str, kind: str = "error") -> str:
    return f'<p class="{kind}" role="alert">{escape(text)}</p>' if text else ""


def _input(name: str, label: str, kind: str = "text", value: str = "", **attrs: str) -> str:
    extra = "".join(f' {escape(k.replace("_", "-"))}="{escape(v)}"' for k, v in attrs.items())
    shown = f' value="{escape(value)}"' if value else ""
    return (
        f'<label for="input-{escape(name)}">{escape(label)}</label>'
        f'<input id="input-{escape(name)}" type="{escape(kind)}" name="{escape(name)}"'
        f"{shown}{extra} required>"
    )


def _form(action: str, csrf: str, body: str, button: str) -> str:
    return (
        f'<form action="{escape(action)}" method="POST">{_hidden("csrfToken", csrf)}{body}'
        f'<button type="submit">{escape(button)}</button></form>'
    )


def _link(url: str, text: str) -> str:
    return f'<a class="button" href="{escape(url)}">{escape(text)}</a>'


def sign_up_page(
    *,
    action_url: str,
    signin_url: str,
    csrf_token: str,
    theme: Theme,
    error: str = "",
    email: str = "",
    name: str = "",
    min_length: int,
    max_length: int,
) -> str:
    """Create an account: name, address, password."""
    body = (
        _input("name", "Name", value=name, autocomplete="name").replace(" required>", ">")
        + _input("email", "Email", "email", email, autocomplete="email")
        + _input(
            "password",
            "Password",
            "password",
            autocomplete="new-password",
            minlength=str(min_length),
        )
    )
    return _shell(
        "Create an account",
        "<h1>Create an account</h1>"
        + _banner(message(error, min_length=min_length, max_length=max_length))
        + _form(action_url, csrf_token, body, "Create account")
        + _link(signin_url, "I have an account: sign in"),
        theme,
    )


def forgot_page(
    *, action_url: str, csrf_token: str, theme: Theme, error: str = "", email: str = ""
) -> str:
    """Ask for a reset link."""
    body = _input("email", "Email", "email", email, autocomplete="email")
    return _shell(
        "Reset your password",
        "<h1>Reset your password</h1><p>We will email you a link to choose a new password.</p>"
        + _banner(message(error))
        + _form(action_url, csrf_token, body, "Send reset link"),
        theme,
    )


def reset_page(
    *,
    action_url: str,
    csrf_token: str,
    theme: Theme,
    token: str,
    email: str,
    error: str = "",
    min_length: int,
    max_length: int,
) -> str:
    """Choose a new password (the link's token travels in the form, used on submit)."""
    body = (
        _hidden("token", token)
        + _hidden("email", email)
        + _input(
            "password",
            "New password",
            "password",
            autocomplete="new-password",
            minlength=str(min_length),
        )
    )
    return _shell(
        "Choose a new password",
        "<h1>Choose a new password</h1>"
        + _banner(message(error, min_length=min_length, max_length=max_length))
        + _form(action_url, csrf_token, body, "Set password"),
        theme,
    )


def change_password_page(
    *,
    action_url: str,
    csrf_token: str,
    theme: Theme,
    error: str = "",
    min_length: int,
    max_length: int,
) -> str:
    """Change the password: the current one, then the new one."""
    body = _input(
        "current_password", "Current password", "password", autocomplete="current-password"
    ) + _input(
        "new_password",
        "New password",
        "password",
        autocomplete="new-password",
        minlength=str(min_length),
    )
    return _shell(
        "Change your password",
        "<h1>Change your password</h1>"
        "<p>Your other devices will be signed out.</p>"
        + _banner(message(error, min_length=min_length, max_length=max_length))
        + _form(action_url, csrf_token, body, "Change password"),
        theme,
    )


def change_email_page(
    *,
    action_url: str,
    csrf_token: str,
    theme: Theme,
    current_email: str,
    asks_password: bool,
    error: str = "",
    email: str = "",
) -> str:
    """Change the address: the new one (confirmed by a link sent to it) and the password."""
    body = _input("email", "New email", "email", email, autocomplete="email")
    if asks_password:
        body += _input("password", "Password", "password", autocomplete="current-password")
    return _shell(
        "Change your email",
        "<h1>Change your email</h1>"
        f"<p>Now: {escape(current_email)}. The new address takes effect once you follow the "
        "link we send to it.</p>"
        + _banner(message(error))
        + _form(action_url, csrf_token, body, "Send link"),
        theme,
    )


def notice_page(*, title: str, text: str, link_url: str, link_text: str, theme: Theme) -> str:
    """A short notice with one way on."""
    body = f"<h1>{escape(title)}</h1><p>{escape(text)}</p>{_link(link_url, link_text)}"
    return _shell(title, body, theme)
