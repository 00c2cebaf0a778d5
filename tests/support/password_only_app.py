"""The app of the security page's browser test of a disabled button: password accounts only
(no e-mail link, no OAuth), so a user's password is their last way in; sign-up signs in at
once (no address to verify); revocable JWT sessions, the store of ``E2E_DATABASE`` (as
:mod:`db_app` reads it)."""

from __future__ import annotations

import os
from typing import Any

from db_app import adapter_for

from io_bindings.anyio import AuthApp
from sansio_auth import AuthConfig
from sansio_auth.providers import Password


def send_email(identifier: str, url: str, kind: str, message: Any) -> None:
    """No account e-mail is needed here (sign-up asks for no verification)."""


app = AuthApp(
    AuthConfig(
        secret="password-only-e2e-secret-that-is-long-enough-0123",
        trust_host=True,
        adapter=adapter_for(os.environ["E2E_DATABASE"]),
        providers=[Password(send_email=send_email, require_verified_email=False)],
        session={"strategy": "jwt", "revocation": True},
    )
)
