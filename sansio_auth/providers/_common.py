"""Helpers shared by the built-in provider modules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

LOGOS = "https://authjs.dev/img/providers"
"""Where Auth.js publishes its provider logos (one SVG per provider id)."""


def style(provider_id: str, **colours: str) -> dict[str, str]:
    """A button style: the provider's logo and ``colours`` (``bg``, ``text``, ``brand_color``)."""
    return {"logo": f"{LOGOS}/{provider_id}.svg", **colours}


def text(value: Any) -> str | None:
    """``value`` if it is a non-empty string, else ``None``."""
    return value if isinstance(value, str) and value else None


def dig(value: Any, *path: str) -> Any:
    """``value[path[0]][path[1]]...``, or ``None`` where a step is missing or not a mapping."""
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value
