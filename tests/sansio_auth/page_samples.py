"""A context of each built-in page in each of its states (errors, methods, provider types, a
second factor on and off, ...), for tests that draw every page without driving the flows."""

from __future__ import annotations

from typing import Any

from sansio_auth.errors import HINTS
from sansio_auth.pages.accounts import MESSAGES as ACCOUNT_MESSAGES
from sansio_auth.pages.accounts import NOTICES
from sansio_auth.pages.outcomes import ERROR_PAGES
from sansio_auth.pages.security import SECURITY_ERRORS
from sansio_auth.pages.sign_in import SIGN_IN_ERRORS
from sansio_auth.pages.two_factor import MESSAGES as TWO_FACTOR_MESSAGES

SITE = "https://app.example.com"
HINT = HINTS["check-cookies"]._asdict()
"""A debug hint (``debug=True``): English for developers, shown as it is."""
AUTH = f"{SITE}/auth"


def _provider(kind: str, **extra: Any) -> dict[str, Any]:
    provider = {
        "id": kind,
        "name": kind.title(),
        "type": kind,
        "signin_url": f"{AUTH}/signin/{kind}",
        "callback_url": f"{AUTH}/callback/{kind}",
        "options_url": None,
        "fields": {},
        "style": None,
        "conditional_ui": False,
    }
    return {**provider, **extra}


PROVIDERS = [
    _provider("oidc", name="Acme", style={"logo": "/acme.svg", "bg": "#000", "text": "#fff"}),
    _provider("email"),
    _provider("credentials", fields={"username": {"label": "User name"}, "pin": {}}),
    _provider("password"),
    _provider(
        "webauthn",
        name="Passkey",
        options_url=f"{AUTH}/webauthn-options/webauthn",
        fields={"email": {"label": "Email", "autocomplete": "username webauthn"}},
        conditional_ui=True,
    ),
]


def _sign_in(error: str | None) -> dict[str, Any]:
    return {
        "providers": PROVIDERS,
        "csrf_token": "csrf-1",
        "callback_url": f"{SITE}/after",
        "error": error,
        "email": "ann@example.com",
        "forgot_password_url": f"{AUTH}/forgot-password",
        "signup_url": f"{AUTH}/signup",
        "hint": None,
    }


SESSIONS = [
    {
        "id": "s1",
        "current": True,
        "userAgent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36",
        "createdAt": "2026-01-02T03:04:05Z",
        "lastSeenAt": "2026-01-03T03:04:05Z",
        "ipAddress": "192.0.2.7",
    },
    {"id": "s2", "current": False, "userAgent": "curl/8.5.0", "createdAt": None},
    {"id": "s3", "current": False, "userAgent": None, "createdAt": "2026-01-02T03:04:05Z"},
]
ACCOUNTS = [
    {
        "provider": "password",
        "providerName": "Password",
        "type": "password",
        "providerAccountId": "ann@example.com",
        "canUnlink": True,
    },
    {
        "provider": "acme",
        "providerName": "Acme",
        "type": "oidc",
        "providerAccountId": "acme-sub",
        "canUnlink": False,
    },
]


def _security(error: str | None, *, full: bool) -> dict[str, Any]:
    return {
        "user": {"id": "u1", "name": "Ann", "email": "ann@example.com", "image": None},
        "sessions": SESSIONS if full else None,
        "accounts": ACCOUNTS if full else [],
        "linkable": [{"id": "acme", "name": "Acme", "url": f"{AUTH}/link/acme"}] if full else [],
        "csrf_token": "csrf-1",
        "error": error,
        "revoke_session_url": f"{AUTH}/revoke-session",
        "revoke_other_sessions_url": f"{AUTH}/revoke-other-sessions",
        "unlink_url": f"{AUTH}/unlink",
        "delete_user_url": f"{AUTH}/delete-user",
        "security_url": f"{AUTH}/security",
        "site_url": SITE,
        "passkey": {
            "options_url": f"{AUTH}/webauthn-options/passkey",
            "callback_url": f"{AUTH}/callback/passkey",
        }
        if full
        else None,
        "change_password_url": f"{AUTH}/change-password" if full else None,
        "change_email_url": f"{AUTH}/change-email" if full else None,
        "two_factor": {"url": f"{AUTH}/two-factor-setup", "enabled": full},
    }


LENGTHS = {"min_length": 8, "max_length": 1024}


def _form(action: str, error: str | None, **context: Any) -> dict[str, Any]:
    return {"action_url": f"{AUTH}/{action}", "csrf_token": "csrf-1", "error": error, **context}


def _account_pages(error: str | None) -> list[tuple[str, dict[str, Any]]]:
    back = {"security_url": f"{AUTH}/security"}
    return [
        (
            "signup",
            _form(
                "signup",
                error,
                signin_url=f"{AUTH}/signin",
                email="ann@example.com",
                name="Ann",
                **LENGTHS,
            ),
        ),
        ("forgot-password", _form("forgot-password", error, email="ann@example.com")),
        (
            "reset-password",
            _form("reset-password", error, token="t0k3n", email="ann@example.com", **LENGTHS),
        ),
        ("change-password", _form("change-password", error, **LENGTHS, **back)),
        (
            "change-email",
            _form(
                "change-email",
                error,
                current_email="ann@example.com",
                asks_password=True,
                email="new@example.com",
                **back,
            ),
        ),
    ]


URI = "otpauth://totp/app.example.com:ann%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=app"


def _two_factor_pages(error: str | None) -> list[tuple[str, dict[str, Any]]]:
    return [
        (
            "two-factor",
            _form(
                "two-factor",
                error,
                methods=["email", "passkey", "recovery", "totp"],
                trust_device_days=30,
                passkey_options_url=f"{AUTH}/two-factor?passkey=options",
            ),
        ),
        (
            "two-factor-setup",
            _form(
                "two-factor-setup",
                error,
                uri=URI,
                secret="JBSWY3DPEHPK3PXP",
                required=not error,
                ask_current=bool(error),
                fields={"action": "enable"},
                security_url=None if not error else f"{AUTH}/security",
            ),
        ),
        (
            "two-factor-manage",
            _form(
                "two-factor-manage",
                error,
                replace_url=f"{AUTH}/two-factor-setup?action=replace",
                codes_left=7,
                security_url=f"{AUTH}/security",
            ),
        ),
    ]


def samples() -> list[tuple[str, dict[str, Any]]]:
    """Each page name with a context, once per state worth drawing."""
    found: list[tuple[str, dict[str, Any]]] = []
    for error in (None, "made-up", *SIGN_IN_ERRORS):
        found.append(("signin", _sign_in(error)))
    found.append(("signin", {**_sign_in("Configuration"), "hint": HINT}))
    found.append(("signout", {"action_url": f"{AUTH}/signout", "csrf_token": "csrf-1"}))
    for kind in (None, "email", "verify-email", "reset"):
        found.append(("verify-request", {"kind": kind, "site_url": SITE}))
    for error in (None, "made-up", *ERROR_PAGES):
        context = {"error": error, "site_url": SITE, "signin_url": f"{AUTH}/signin", "hint": None}
        found.append(("error", context))
    found.append(("error", {**context, "hint": HINT}))
    for seconds in (1, 60, 61, 900):
        found.append(("rate-limited", {"retry_after": seconds, "signin_url": f"{AUTH}/signin"}))
    for error in (None, "made-up", *SECURITY_ERRORS):
        found.append(("security", _security(error, full=True)))
    found.append(("security", _security(None, full=False)))
    for error in (None, "made-up", *ACCOUNT_MESSAGES):
        found += _account_pages(error)
    for kind in NOTICES:
        found.append(("notice", {"notice": kind, "link_url": f"{SITE}/"}))
    for error in (None, "made-up", *TWO_FACTOR_MESSAGES):
        found += _two_factor_pages(error)
    found.append(("recovery-codes", {"codes": ["abcd-efgh", "ijkl-mnop"], "continue_url": SITE}))
    return found
