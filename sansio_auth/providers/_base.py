"""The typed provider records every provider (built-in or custom) converts to."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal, Self, TypeVar

from ..errors import Configuration

ProviderType = Literal["oauth", "oidc", "email", "credentials", "webauthn", "password"]
"""A provider's ``type``: how it signs users in."""
R = TypeVar("R")


@dataclass(frozen=True, kw_only=True, slots=True)
class ProviderStyle:
    """How the built-in sign-in page draws the provider's button."""

    logo: str | None = None
    bg: str | None = None
    text: str | None = None
    brand_color: str | None = None


@dataclass(frozen=True, kw_only=True)
class Provider:
    """Fields every provider has."""

    kind: ClassVar[ProviderType]
    defaults: ClassVar[Mapping[str, Any]] = {}
    id: str
    name: str
    type: ProviderType
    style: ProviderStyle | None = None

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any]) -> Self:
        """This kind of provider from its defaults updated with ``options``."""
        return build(cls, cls.defaults, options)

    def __post_init__(self) -> None:
        if isinstance(self.style, Mapping):
            object.__setattr__(
                self, "style", record_of(ProviderStyle, self.style, self.id, "style")
            )

    @property
    def env_prefix(self) -> str:
        """``AUTH_<ID>_``, where this provider's environment variables start."""
        return env_prefix(self.id)

    def check(self) -> None:
        """Start-up checks run after ``AUTH_<ID>_*`` inference; raise a named config error."""


def env_prefix(provider_id: str) -> str:
    """``AUTH_<ID>_`` of a provider id: ``azure-ad-b2c`` → ``AUTH_AZURE_AD_B2C_``."""
    return "AUTH_" + provider_id.upper().replace("-", "_") + "_"


def record_of(kind: type[R], value: Mapping[str, Any], provider_id: str, option: str) -> R:
    """The ``kind`` record of option ``option`` given as a mapping; unknown keys named."""
    known = {f.name for f in fields(kind)}  # type: ignore[arg-type]
    unknown = sorted(set(value) - known)
    if unknown:
        raise Configuration(
            f"provider {provider_id!r}: `{option}` has unknown keys: {', '.join(unknown)} "
            f"(known: {', '.join(sorted(known))})"
        )
    return kind(**value)


P = TypeVar("P", bound=Provider)


def build(kind: type[P], defaults: Mapping[str, Any], overrides: Mapping[str, Any]) -> P:
    """A ``kind`` record from ``defaults`` updated with ``overrides``; unknown keys named."""
    known = {f.name for f in fields(kind)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        ident = overrides.get("id", defaults.get("id", kind.kind))
        raise Configuration(
            f"provider {ident!r} has unknown keys: {', '.join(unknown)} "
            f"(known: {', '.join(sorted(known))})"
        )
    values = {**defaults, **{k: v for k, v in overrides.items() if v is not None}}
    values.setdefault("type", kind.kind)
    if values["type"] != kind.kind:
        raise Configuration(
            f"provider {values.get('id')!r} has type {values['type']!r}, expected {kind.kind!r}"
        )
    try:
        return kind(**values)
    except TypeError as err:
        raise Configuration(f"provider {values.get('id', kind.kind)!r}: {err}") from err
