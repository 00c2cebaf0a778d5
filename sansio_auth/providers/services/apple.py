"""Sign in with Apple (OpenID Connect)."""

from collections.abc import Mapping
from typing import Any

import msgspec
from joserfc import jwt
from joserfc.jwk import ECKey

from .._base import ProviderStyle
from ..oauth import Hooks, OAuthProvider, Profile, Step, TokenSet
from ..service import Join, ProfileMap, Service

APPLE_ISSUER = "https://appleid.apple.com"
MAX_SECRET_LIFETIME = 15_777_000
"""Apple refuses client secrets valid for longer than six months (in seconds)."""

apple_profile = ProfileMap(
    id="sub",
    name=(Join("user.name.firstName", "user.name.lastName"), "email"),
    email="email",
)
"""Apple claims → user: ``sub``; the first-consent name, else the e-mail; no image."""


def first_consent_user(
    provider: OAuthProvider, profile: Profile, tokens: TokenSet, params: Mapping[str, Any]
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


SERVICE = Service(
    id="apple",
    name="Apple",
    type="oidc",
    factory="Apple",
    issuer=APPLE_ISSUER,
    scope="name email",
    params={"response_mode": "form_post"},
    checks=("nonce", "state"),
    client_auth="client_secret_post",
    profile=apple_profile,
    style=ProviderStyle(bg="#000", text="#fff"),
    hooks=Hooks(complete_profile=first_consent_user),
    setup="https://developer.apple.com/sign-in-with-apple/get-started/",
    notes="Apple answers with a `POST` (`form_post`): the check cookies are `SameSite=None; "
    "Secure` and a redirect proxy is not used. The name arrives only on the first consent, "
    'in the unsigned `user` form field (kept as `profile["user"]`; only the name is used, '
    "the e-mail always comes from the ID token); later sign-ins use the e-mail as name. "
    "`AUTH_APPLE_SECRET` is a JWT you sign with your Sign in with Apple key, valid six "
    "months at most: `apple_client_secret(...)` makes one.",
)
