"""Sign in with Apple (OpenID Connect, issuer ``https://appleid.apple.com``).

As Auth.js's: scope ``name email`` with ``response_mode=form_post`` (Apple POSTs the
code back, so the callback is a ``POST`` and the check cookies are ``SameSite=None``),
checks ``nonce`` and ``state``, ``client_secret_post``. The user's name comes only in
the ``user`` form field of the *first* consent; later sign-ins fall back to the
e-mail address as the name. The ``client_secret`` is a JWT you sign with your Sign in
with Apple key: :func:`apple_client_secret` makes one (valid six months at most).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import msgspec
from joserfc import jwt
from joserfc.jwk import ECKey

from ._common import dig, style, text
from .oauth import OIDCProvider, Profile, Step, TokenSet

APPLE_ISSUER = "https://appleid.apple.com"
MAX_SECRET_LIFETIME = 15_777_000
"""Apple refuses client secrets valid for longer than six months (in seconds)."""


def apple_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Apple claims → user: ``sub``; the first-consent name, else the e-mail; no image."""
    name = dig(profile, "user", "name")
    parts = [text(dig(name, key)) for key in ("firstName", "lastName")]
    full_name = " ".join(p.strip() for p in parts if p and p.strip())
    return {
        "id": profile["sub"],
        "name": full_name or profile.get("email"),
        "email": profile.get("email"),
        "image": None,
    }


@dataclass(frozen=True, kw_only=True)
class AppleProvider(OIDCProvider):
    """The Apple provider record (see :func:`Apple`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "apple",
        "name": "Apple",
        "issuer": APPLE_ISSUER,
        "authorization": {"params": {"scope": "name email", "response_mode": "form_post"}},
        "checks": ("nonce", "state"),
        "client": {"token_endpoint_auth_method": "client_secret_post"},
        "profile": apple_profile,
        "style": style("apple", bg="#000", text="#fff"),
    }

    def complete_profile(
        self, profile: Profile, tokens: TokenSet, params: Mapping[str, Any]
    ) -> Step:
        """Keep the first consent's ``user`` form field (a JSON object) as ``profile["user"]``.

        Only its name is used: the field is not signed, the e-mail comes from the ID token.
        """
        yield from ()
        raw = params.get("user")
        if isinstance(raw, str):
            try:
                user = msgspec.json.decode(raw)
            except (msgspec.DecodeError, UnicodeDecodeError):
                user = None
            if isinstance(user, dict):
                profile["user"] = user
        return profile


def Apple(**options: Any) -> AppleProvider:  # noqa: N802 - Auth.js's name
    """The Apple provider; ``AUTH_APPLE_ID`` is the Services ID, ``AUTH_APPLE_SECRET`` the JWT."""
    return AppleProvider.from_mapping(options)


def apple_client_secret(
    *,
    team_id: str,
    key_id: str,
    private_key: str | bytes,
    client_id: str,
    issued_at: int,
    expires_in: int = MAX_SECRET_LIFETIME,
) -> str:
    """The client secret Apple expects: an ES256 JWT signed with your ``.p8`` key.

    ``issued_at`` is the current Unix time (the engine reads no clock); the secret
    expires ``expires_in`` seconds later (six months at most). Regenerate it before then.
    """
    if not 0 < expires_in <= MAX_SECRET_LIFETIME:
        raise ValueError(f"expires_in must be between 1 and {MAX_SECRET_LIFETIME} seconds")
    key = ECKey.import_key(private_key)
    claims = {
        "iss": team_id,
        "iat": issued_at,
        "exp": issued_at + expires_in,
        "aud": APPLE_ISSUER,
        "sub": client_id,
    }
    return jwt.encode({"alg": "ES256", "kid": key_id}, claims, key, algorithms=["ES256"])
