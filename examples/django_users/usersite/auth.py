"""The auth module: sign-in by OpenID Connect, e-mail link, passkey and password, users stored
as this project's ``members.User`` through the Django ORM store, database sessions.

Providers: e-mail links (printed to the console, or sent to ``EXAMPLE_SMTP_PORT`` on
127.0.0.1 when set), passkeys, the members' own Django passwords (``createsuperuser``, the
admin's form, ``User.objects.create_user``: checked by Django's hashers), and, when
``EXAMPLE_OIDC_ISSUER``, ``AUTH_OP_ID`` and ``AUTH_OP_SECRET`` are set, an OpenID Connect
provider ``op``.
"""

from __future__ import annotations

import os
from typing import Any

from io_bindings.django import DjangoAuth
from io_bindings.django.orm import DjangoAdapter
from io_bindings.email import ConsoleSender, SMTPSender
from sansio_auth import AuthConfig
from sansio_auth.providers import Email, Passkey, Password


def _sender() -> Any:
    port = os.environ.get("EXAMPLE_SMTP_PORT")
    if port:
        return SMTPSender("127.0.0.1", int(port), security="none", from_="auth@example.com")
    return ConsoleSender()


def make_config() -> AuthConfig:
    """The example's configuration (secret and trust from ``AUTH_*`` in settings)."""
    sender = _sender()
    providers: list[Any] = [
        Email(send_verification_request=sender),
        Passkey(),
        Password(send_email=sender),  # a member whose address is unverified gets a link first
    ]
    if issuer := os.environ.get("EXAMPLE_OIDC_ISSUER"):
        providers.append({"id": "op", "name": "Test OP", "type": "oidc", "issuer": issuer})
    return AuthConfig(
        adapter=DjangoAdapter(),
        providers=providers,
        experimental={"enable_webauthn": True},
    )


handle, sign_in, sign_out = DjangoAuth(make_config())
