"""Auth.js's cookies: names, attributes, user overrides, and session-cookie chunking."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import msgspec

from .errors import Configuration
from .http import Cookie, CookieOptions

CHECK_MAX_AGE = 15 * 60
CHUNK_SIZE = 4096 - 160
"""Characters of value per cookie, as Auth.js: 4096 allowed minus 160 for attributes."""
MAX_CHUNKS = 16
"""Session cookie chunks read, written and deleted at most (``name.0`` to ``name.15``: 62 KB,
under the bindings' 64 KiB header limit). A request with a chunk beyond them is not a
session: it is refused, and its chunks are deleted, at most this many in one answer, the
lowest first (Auth.js has no cap)."""

COOKIE_KEYS = (
    "session_token",
    "callback_url",
    "csrf_token",
    "pkce_code_verifier",
    "state",
    "nonce",
    "webauthn_challenge",
    "two_factor",
    "two_factor_setup",
    "trusted_device",
    "link_account",
    "known_device",
)
_BASE_NAMES = {
    "session_token": "authjs.session-token",
    "callback_url": "authjs.callback-url",
    "csrf_token": "authjs.csrf-token",
    "pkce_code_verifier": "authjs.pkce.code_verifier",
    "state": "authjs.state",
    "nonce": "authjs.nonce",
    "webauthn_challenge": "authjs.challenge",
    "two_factor": "authjs.two-factor",
    "two_factor_setup": "authjs.two-factor-setup",
    "trusted_device": "authjs.trusted-device",
    "link_account": "authjs.link-account",  # ours: an explicit "link" in progress
    "known_device": "authjs.known-device",  # ours: the rate limits' device cookie
}


class CookieSpec(msgspec.Struct, frozen=True):
    """A cookie's name and attributes (``max_age`` is the lifetime in seconds, if any)."""

    name: str
    options: CookieOptions
    expires_in: int | None = None
    """Seconds until ``Expires`` (set per write from the clock), if the cookie has one."""

    def make(self, value: str, now: float, *, expires_in: int | None = None) -> Cookie:
        """This cookie with ``value``; ``Expires`` = now + lifetime when it has one, and a
        ``Max-Age`` (if the cookie has one) of the same lifetime: ``expires_in`` overrides
        both, so the two attributes never disagree."""
        lifetime = expires_in if expires_in is not None else self.expires_in
        options = self.options
        if lifetime is not None:
            max_age = options.max_age if options.max_age is None else lifetime
            options = msgspec.structs.replace(options, expires=now + lifetime, max_age=max_age)
        return Cookie(name=self.name, value=value, options=options)

    def delete(self, name: str | None = None) -> Cookie:
        """A cookie that removes this one (or its chunk ``name``)."""
        options = msgspec.structs.replace(self.options, max_age=0, expires=None)
        return Cookie(name=name or self.name, value="", options=options)


class CookieSet(msgspec.Struct, frozen=True, kw_only=True):
    """Every cookie's spec for one security mode (secure or not)."""

    session_token: CookieSpec
    callback_url: CookieSpec
    csrf_token: CookieSpec
    pkce_code_verifier: CookieSpec
    state: CookieSpec
    nonce: CookieSpec
    webauthn_challenge: CookieSpec
    two_factor: CookieSpec
    """A sign-in waiting for its second factor (not in Auth.js)."""
    two_factor_setup: CookieSpec
    """An authenticator-app secret shown for set-up, not yet confirmed (not in Auth.js)."""
    trusted_device: CookieSpec
    """"Trust this device": skip the second factor (not in Auth.js)."""
    link_account: CookieSpec
    """Ours: whom a ``POST link/<provider>`` links the provider's account to (sealed, 15 min)."""
    known_device: CookieSpec
    """Ours: the accounts that signed in on this browser, for the rate limits (sealed, lasts
    ``rate_limits.device_max_age``; ``__Host-`` when secure)."""


def cookie_set(secure: bool, session_max_age: int, overrides: Mapping[str, Any]) -> CookieSet:
    """Auth.js's default cookies for ``secure`` with user ``overrides`` merged over them."""
    prefix = "__Secure-" if secure else ""
    host = "__Host-" if secure else ""  # this host only: no Domain, Path=/
    base = CookieOptions(secure=secure)
    check = msgspec.structs.replace(base, max_age=CHECK_MAX_AGE)
    specs = {
        "session_token": CookieSpec(prefix + _BASE_NAMES["session_token"], base, session_max_age),
        "callback_url": CookieSpec(prefix + _BASE_NAMES["callback_url"], base),
        "csrf_token": CookieSpec(host + _BASE_NAMES["csrf_token"], base),
        "pkce_code_verifier": CookieSpec(
            prefix + _BASE_NAMES["pkce_code_verifier"], check, CHECK_MAX_AGE
        ),
        "state": CookieSpec(prefix + _BASE_NAMES["state"], check, CHECK_MAX_AGE),
        "nonce": CookieSpec(prefix + _BASE_NAMES["nonce"], base, CHECK_MAX_AGE),
        "webauthn_challenge": CookieSpec(
            prefix + _BASE_NAMES["webauthn_challenge"], check, CHECK_MAX_AGE
        ),
        "two_factor": CookieSpec(prefix + _BASE_NAMES["two_factor"], check, CHECK_MAX_AGE),
        "two_factor_setup": CookieSpec(
            host + _BASE_NAMES["two_factor_setup"], check, CHECK_MAX_AGE
        ),
        "trusted_device": CookieSpec(prefix + _BASE_NAMES["trusted_device"], base),
        "link_account": CookieSpec(prefix + _BASE_NAMES["link_account"], check, CHECK_MAX_AGE),
        "known_device": CookieSpec(  # __Host-: Secure, path /, no Domain: this host only
            ("__Host-" if secure else "") + _BASE_NAMES["known_device"], base
        ),
    }
    for key, override in overrides.items():
        if key not in specs:
            raise Configuration(
                f"`cookies` has an unknown key {key!r} (known: {', '.join(COOKIE_KEYS)})"
            )
        specs[key] = _merge(specs[key], key, override)
    return CookieSet(**specs)


def _merge(spec: CookieSpec, key: str, override: Mapping[str, Any]) -> CookieSpec:
    unknown = set(override) - {"name", "options"}
    if unknown:
        raise Configuration(f"`cookies.{key}` has unknown keys: {', '.join(sorted(unknown))}")
    try:
        options = msgspec.structs.replace(spec.options, **dict(override.get("options", {})))
        msgspec.convert(msgspec.structs.asdict(options), CookieOptions)
    except (TypeError, msgspec.ValidationError) as err:
        raise Configuration(f"`cookies.{key}.options` is invalid: {err}") from err
    return CookieSpec(override.get("name", spec.name), options, spec.expires_in)


def read_chunked(cookies: Mapping[str, str], name: str) -> tuple[str | None, list[str]]:
    """The session value from ``name`` or its chunks ``name.0``, ``name.1``…, and their names.

    Only chunks ``name.0`` to ``name.<MAX_CHUNKS - 1>`` make a value; with any other chunk
    the value is refused (``None``). At most :data:`MAX_CHUNKS` chunks are named, the lowest
    first (so at most that many are ever deleted at once), a refused request's too: deleting
    what is named ends a refusal, in one answer or a few."""
    whole = cookies.get(name)
    prefix = name + "."
    for key in cookies:
        if key.startswith(prefix):
            break
    else:  # the common case (every request that checks its session): no chunks
        return whole or None, [name] if whole is not None else []
    chunks = sorted(
        (int(suffix), key)
        for key in cookies
        if key.startswith(prefix) and (suffix := key[len(prefix) :]).isascii() and suffix.isdigit()
    )
    within = [key for index, key in chunks if index < MAX_CHUNKS][:MAX_CHUNKS]
    named = [name] if whole is not None else []
    if len(within) < len(chunks):
        return None, named + [key for _, key in chunks][:MAX_CHUNKS]
    present = named + within
    if chunks:
        return "".join(cookies[key] for _, key in chunks) or None, present
    return whole or None, present


def unread_chunks(name: str, present: list[str]) -> list[str]:
    """What a session read deletes when :func:`read_chunked` found no value (``present``):
    chunks that make none (beyond the cap, or empty), with ``name`` if it came with them;
    nothing for a lone empty ``name`` (an empty cookie is left as it is)."""
    return [] if present == [name] else present


def write_chunked(
    spec: CookieSpec, value: str, now: float, present: list[str], expires_in: int | None = None
) -> list[Cookie]:
    """Cookies that store ``value`` (split when too long) and delete stale chunks in ``present``;
    :class:`~sansio_auth.errors.Configuration` when it needs more than :data:`MAX_CHUNKS`."""
    if len(value) <= CHUNK_SIZE:  # the common case: one cookie
        fresh = [spec.make(value, now, expires_in=expires_in)]
        if not present or present == [spec.name]:  # nothing else to delete
            return fresh
    else:
        pieces = [value[i : i + CHUNK_SIZE] for i in range(0, len(value), CHUNK_SIZE)]
        if len(pieces) > MAX_CHUNKS:
            raise Configuration(
                f"the session cookie would need {len(pieces)} chunks of {CHUNK_SIZE} "
                f"characters (at most {MAX_CHUNKS} are written): keep less in the session token"
            )
        fresh = [
            msgspec.structs.replace(
                spec.make(piece, now, expires_in=expires_in), name=f"{spec.name}.{i}"
            )
            for i, piece in enumerate(pieces)
        ]
    written = {cookie.name for cookie in fresh}
    return [spec.delete(name) for name in present if name not in written] + fresh


class ResponseCookies:
    """The cookies a response sets or deletes, in the order the flows decided them."""

    __slots__ = ("_cookies",)

    def __init__(self) -> None:
        self._cookies: list[Cookie] = []

    def __iter__(self) -> Iterator[Cookie]:
        return iter(self._cookies)

    def __repr__(self) -> str:
        return f"ResponseCookies({self._cookies!r})"

    def set(self, cookie: Cookie) -> None:
        """Send ``cookie`` (a value, or a deletion made by :meth:`CookieSpec.delete`)."""
        self._cookies.append(cookie)

    def set_chunked(
        self,
        spec: CookieSpec,
        value: str,
        now: float,
        present: list[str],
        *,
        expires_in: int | None = None,
    ) -> None:
        """Store ``value`` in ``spec``'s cookie, in chunks when too long (:func:`write_chunked`)."""
        self._cookies.extend(write_chunked(spec, value, now, present, expires_in))

    def delete(self, spec: CookieSpec) -> None:
        """Delete ``spec``'s cookie."""
        self._cookies.append(spec.delete())

    def delete_chunks(self, spec: CookieSpec, names: Iterable[str]) -> None:
        """Delete each of ``names``: the parts of ``spec``'s cookie the browser sent."""
        self._cookies.extend(spec.delete(name) for name in names)

    def drop(self, name: str) -> None:
        """Take back what this response was to send for ``name`` or its chunks ``name.N``."""
        chunk = name + "."
        self._cookies = [
            c for c in self._cookies if c.name != name and not c.name.startswith(chunk)
        ]

    def deletions_only(self) -> tuple[Cookie, ...]:
        """Only the deletions: what a response still sends when the request failed."""
        return tuple(c for c in self._cookies if c.options.max_age == 0)
