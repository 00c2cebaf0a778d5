"""The checks of password accounts and two-factor options (not in Auth.js), for
:func:`sansio_auth.settings.resolve`."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from .config import TwoFactorOptions, as_record
from .errors import Configuration, MissingAdapter, MissingAdapterMethods
from .events import accepts
from .providers import EmailProvider, HTTPEmailProvider, PasswordProvider, Provider
from .two_factor import SINGLE_FACTOR

PASSWORD_METHODS = (
    "create_user",
    "get_user",
    "get_user_by_email",
    "update_user",
    "create_verification_token",
    "use_verification_token",
    "get_password_hash",
    "set_password_hash",
)
"""What password accounts need of an adapter (not in Auth.js: the last two)."""
TWO_FACTOR_METHODS = (
    "get_user",
    "get_two_factor",
    "set_two_factor",
    "delete_two_factor",
    "use_totp_step",
    "use_recovery_code",
)
"""What two-factor authentication needs of an adapter (not in Auth.js)."""


def with_senders(providers: tuple[Provider, ...]) -> tuple[Provider, ...]:
    """Password providers without ``send_email`` get the e-mail provider's sender (when it
    takes the ``message`` to send), or send through its HTTP API (Resend, SendGrid...); a
    sender that cannot take the message is a configuration error."""
    email = next((p for p in providers if isinstance(p, EmailProvider)), None)
    fallback = email.send_verification_request if email is not None else None
    through_api = isinstance(email, HTTPEmailProvider) and fallback is None
    out: list[Provider] = []
    for provider in providers:
        if isinstance(provider, PasswordProvider):
            sender = provider.send_email or fallback
            if sender is None and through_api:
                out.append(provider)  # sent through the e-mail provider's HTTP API
                continue
            if sender is None or not accepts(sender, "message"):
                raise Configuration(_no_sender(provider, email))
            provider = dataclasses.replace(provider, send_email=sender)
        out.append(provider)
    return tuple(out)


def _no_sender(provider: PasswordProvider, email: EmailProvider | None) -> str:
    """Why ``provider`` has no sender: the one given, or the e-mail provider's it would use,
    cannot take the ``message`` to send."""
    example = "(e.g. io_bindings.email.SMTPSender(...))"
    if provider.send_email is not None:
        return (
            f"the password provider {provider.id!r}: `send_email` must accept `message` {example}"
        )
    if email is not None and email.send_verification_request is not None:
        return (
            f"the password provider {provider.id!r} has no `send_email`, and the e-mail "
            f"provider {email.id!r}'s `send_verification_request` does not accept `message`: "
            f"give the password provider a `send_email` {example}"
        )
    return (
        f"the password provider {provider.id!r} needs a `send_email` that accepts `message` "
        f"{example}, or an e-mail provider whose sender does"
    )


def two_factor_options(
    value: TwoFactorOptions | Mapping[str, Any] | None, adapter: Any, providers: Sequence[Provider]
) -> TwoFactorOptions | None:
    """The checked two-factor options (``None``: off)."""
    if value is None:
        return None
    options = as_record(TwoFactorOptions, value, "two_factor")
    ids = {p.id for p in providers}
    chosen = options.providers
    if chosen not in ("all", SINGLE_FACTOR):
        if isinstance(chosen, str) or not all(isinstance(i, str) for i in chosen):
            raise Configuration(
                '`two_factor.providers` must be a list of provider ids, "all" or "single-factor"'
            )
        unknown = sorted(set(chosen) - ids)
        if unknown:
            raise Configuration(f"`two_factor.providers` names unknown providers: {unknown}")
    for name in ("trust_device_days", "challenge_max_age", "email_code_max_age", "max_failures"):
        number = getattr(options, name)
        if number is None and name == "max_failures":
            continue
        least = 0 if name == "trust_device_days" else 1
        if isinstance(number, bool) or not isinstance(number, int) or number < least:
            raise Configuration(f"`two_factor.{name}` must be an integer >= {least}")
    if options.email_code and not any(isinstance(p, PasswordProvider) for p in providers):
        raise Configuration(
            "`two_factor.email_code` sends codes with the password provider's sender: "
            "configure a password provider"
        )
    if adapter is None:
        raise MissingAdapter("two-factor authentication requires an adapter")
    required = [*TWO_FACTOR_METHODS]
    if options.email_code:
        required += ["create_verification_token", "use_verification_token"]
    missing = sorted({m for m in required if not callable(getattr(adapter, m, None))})
    if missing:
        raise MissingAdapterMethods(f"Required adapter methods were missing: {', '.join(missing)}")
    return options
