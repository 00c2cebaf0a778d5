"""The PKCE, state and nonce checks, each kept in its own short-lived encrypted cookie.

Wire-compatible with Auth.js: a cookie's value is the session-token JWE with the
cookie's name as salt and a 15-minute lifetime, of ``{"value": ..., "provider": <id>}``;
the ``provider`` binds it to the provider that started the sign-in
(GHSA-x445-f3h2-j279). The ``state`` parameter is itself a JWE (salt
``encodedState``) of ``{"random": ..., "origin"?: ...}``; ``origin`` carries a
preview deployment's callback URL through a redirect proxy.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from .. import jwt
from ..cookies import CHECK_MAX_AGE, CookieSpec
from ..errors import InvalidCheck
from ..http import Cookie

STATE_SALT = "encodedState"
Entropy = Callable[[int], bytes]


def b64url(data: bytes) -> str:
    """Base64url without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    """The bytes of base64url ``text``, padded or not (:class:`ValueError` if it is not)."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def random_value(entropy: Entropy) -> str:
    """32 random bytes, base64url (43 characters): a PKCE verifier, a nonce."""
    return b64url(entropy(32))


def pkce_challenge(verifier: str) -> str:
    """The S256 code challenge of ``verifier``."""
    return b64url(hashlib.sha256(verifier.encode("ascii")).digest())


def seal(
    spec: CookieSpec,
    value: str,
    *,
    provider_id: str,
    secrets: Sequence[str],
    now: float,
    entropy: Entropy,
    cross_site: bool = False,
    extra: Mapping[str, Any] | None = None,
) -> Cookie:
    """The check cookie that keeps ``value`` for ``provider_id`` for 15 minutes.

    ``cross_site`` (``response_mode=form_post``: the provider POSTs back from its
    own site) makes it ``SameSite=None; Secure`` so that the browser sends it.
    ``extra`` claims travel beside the value (what the callback must know of the sign-in).
    """
    token = jwt.encode(
        {**(extra or {}), "value": value, "provider": provider_id},
        secrets,
        spec.name,
        now=now,
        entropy=entropy,
        max_age=CHECK_MAX_AGE,
    )
    cookie = spec.make(token, now, expires_in=CHECK_MAX_AGE)
    if cross_site:
        options = msgspec.structs.replace(cookie.options, same_site="none", secure=True)
        cookie = msgspec.structs.replace(cookie, options=options)
    return cookie


def unseal_claims(
    cookies: Mapping[str, str],
    spec: CookieSpec,
    *,
    what: str,
    provider_id: str,
    secrets: Sequence[str],
    now: float,
) -> dict[str, Any]:
    """The claims of check cookie ``spec`` (its string ``value`` and any ``extra`` of
    :func:`seal`); :class:`InvalidCheck` if missing, bad or foreign."""
    raw = cookies.get(spec.name)
    if not raw:
        raise InvalidCheck(f"{what} cookie was missing", cause={"provider": provider_id})
    try:
        payload = jwt.decode(raw, secrets, spec.name, now=now)
    except jwt.InvalidToken as err:
        raise InvalidCheck(f"{what} value could not be parsed", cause={"err": err}) from err
    value = payload.get("value")
    if not isinstance(value, str) or not isinstance(payload.get("provider"), str):
        raise InvalidCheck(f"{what} cookie has no value")
    if not hmac.compare_digest(payload["provider"].encode(), provider_id.encode()):
        raise InvalidCheck(
            f"{what} cookie was made for another provider",
            cause={"provider": provider_id, "cookie_provider": payload["provider"]},
        )
    return payload


def new_state(
    secrets: Sequence[str], *, now: float, entropy: Entropy, origin: str | None = None
) -> str:
    """A fresh ``state`` value: the JWE of ``{"random", "origin"?}`` (salt ``encodedState``)."""
    payload: dict[str, Any] = {"random": random_value(entropy)}
    if origin is not None:
        payload["origin"] = origin
    return jwt.encode(payload, secrets, STATE_SALT, now=now, entropy=entropy, max_age=CHECK_MAX_AGE)


def read_state(state: str, secrets: Sequence[str], *, now: float) -> dict[str, Any]:
    """The payload of a ``state`` value made by :func:`new_state`; :class:`InvalidCheck` if not."""
    try:
        return jwt.decode(state, secrets, STATE_SALT, now=now)
    except jwt.InvalidToken as err:
        raise InvalidCheck("state value could not be decrypted", cause={"err": err}) from err
