"""The WebAuthn and Passkey providers: sign-in with a platform or roaming authenticator.

Experimental, as in Auth.js: enable it with ``experimental={"enable_webauthn": True}``;
an adapter that stores authenticators is required. See ``docs/webauthn.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from ..errors import Configuration
from ._base import Provider, ProviderType

DEFAULT_TIMEOUT = 5 * 60 * 1000
"""How long the browser waits for the authenticator, in milliseconds (Auth.js's 5 minutes)."""

DEFAULT_ALGORITHMS = (-8, -7, -257)
"""COSE algorithms offered at registration: EdDSA, ES256, RS256 (@simplewebauthn's default)."""

Requirement = Literal["required", "preferred", "discouraged"]
_REQUIREMENTS = ("required", "preferred", "discouraged")


def _email_field() -> dict[str, Mapping[str, Any]]:
    return {"email": {"label": "Email", "required": True, "autocomplete": "username webauthn"}}


@dataclass(frozen=True, kw_only=True)
class WebAuthnProvider(Provider):
    """A WebAuthn provider record.

    ``relying_party`` overrides the relying party's ``id`` (default: the request's host
    name), ``name`` (default: the host) and ``origin`` (default: the request's origin);
    a list gives its first entry, as in Auth.js. ``form_fields`` are the sign-in page's
    inputs (the ``email`` one names the user at registration); with
    ``enable_conditional_ui`` the page offers passkeys in the browser's autofill, which
    needs a field whose ``autocomplete`` contains ``webauthn``. ``user_verification``
    and ``resident_key`` go to the browser; ``require_user_verification`` is what the
    server demands of a response (``True``, as @simplewebauthn's default that Auth.js
    keeps). ``timeout`` is in milliseconds.

    Auth.js's overrides are accepted too, with snake_case keys: ``get_relaying_party``
    (a function of ``provider``, ``request`` and ``origin`` returning ``{"id", "name",
    "origin"}`` for each ceremony), ``registration_options`` (``timeout``,
    ``attestation_type``, ``authenticator_selection``, ``extensions``,
    ``supported_algorithm_ids``), ``authentication_options`` (``timeout``,
    ``user_verification``, ``extensions``), ``verify_registration_options``
    (``require_user_verification``, ``supported_algorithm_ids``) and
    ``verify_authentication_options`` (``require_user_verification``); they win over the
    flat options above for their ceremony (see :mod:`sansio_auth._webauthn`); in
    ``authenticator_selection``, ``require_resident_key=True`` without ``resident_key``
    asks for ``"required"``.
    """

    kind: ClassVar[ProviderType] = "webauthn"
    defaults: ClassVar[Mapping[str, Any]] = {"id": "webauthn", "name": "WebAuthn"}
    relying_party: Mapping[str, str | list[str]] = field(default_factory=dict)
    enable_conditional_ui: bool = True
    form_fields: Mapping[str, Mapping[str, Any]] = field(default_factory=_email_field)
    timeout: int = DEFAULT_TIMEOUT
    user_verification: Requirement = "preferred"
    resident_key: Requirement = "preferred"
    require_user_verification: bool = True
    algorithms: tuple[int, ...] = DEFAULT_ALGORITHMS
    get_relaying_party: Callable[..., Any] | None = None
    registration_options: Mapping[str, Any] = field(default_factory=dict)
    authentication_options: Mapping[str, Any] = field(default_factory=dict)
    verify_registration_options: Mapping[str, Any] = field(default_factory=dict)
    verify_authentication_options: Mapping[str, Any] = field(default_factory=dict)

    def check(self) -> None:
        """Refuse options that cannot work (the override options: at start-up, by
        :func:`sansio_auth._webauthn.check_ceremony_options`)."""
        where = f"the webauthn provider {self.id!r}"
        unknown = sorted(set(self.relying_party) - {"id", "name", "origin"})
        if unknown:
            raise Configuration(f"{where}: `relying_party` has unknown keys {unknown}")
        for key, value in self.relying_party.items():
            first = relying_party_value(value)
            if not isinstance(first, str) or not first:
                raise Configuration(f"{where}: `relying_party[{key!r}]` must be a string")
        if isinstance(self.timeout, bool) or not isinstance(self.timeout, int) or self.timeout <= 0:
            raise Configuration(f"{where}: `timeout` must be a positive number of milliseconds")
        for name in ("user_verification", "resident_key"):
            if getattr(self, name) not in _REQUIREMENTS:
                raise Configuration(f"{where}: `{name}` must be one of {_REQUIREMENTS}")
        if not self.algorithms or not all(isinstance(a, int) for a in self.algorithms):
            raise Configuration(f"{where}: `algorithms` must be COSE algorithm numbers")

    @property
    def has_webauthn_autocomplete(self) -> bool:
        """Whether a form field's ``autocomplete`` contains ``webauthn`` (conditional UI)."""
        return any(
            "webauthn" in str(f.get("autocomplete") or "") for f in self.form_fields.values()
        )


def relying_party_value(value: str | list[str] | None) -> str | None:
    """A ``relying_party`` entry: a string, or the first of a list (Auth.js)."""
    if isinstance(value, list | tuple):
        return value[0] if value else None
    return value


def WebAuthn(**options: Any) -> WebAuthnProvider:  # noqa: N802 - Auth.js's name
    """The WebAuthn provider (id ``webauthn``, name ``WebAuthn``) with ``options``."""
    return WebAuthnProvider.from_mapping(options)


PASSKEY_DEFAULTS: Mapping[str, Any] = {
    "id": "passkey",
    "name": "Passkey",
    "user_verification": "required",
    "resident_key": "required",
    "require_user_verification": True,
}


def Passkey(**options: Any) -> WebAuthnProvider:  # noqa: N802 - Auth.js's name
    """The Passkey provider (id ``passkey``): a WebAuthn provider that requires user
    verification and a discoverable (resident) credential."""
    return WebAuthnProvider.from_mapping({**PASSKEY_DEFAULTS, **options})
