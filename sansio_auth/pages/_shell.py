"""What every built-in page is made of: the HTML shell (stylesheet, theme, language), hidden
fields, banners, links, and the checks that keep a theme value or a credentials field from
breaking out of its attribute."""

from __future__ import annotations

import re
from collections.abc import Mapping
from html import escape
from typing import Any

from ..config import Theme
from ..i18n import Translator
from ._style import CSS

_SAFE_COLOR = re.compile(r"^[#a-zA-Z0-9(),.% -]{1,64}$")
_SAFE_IMAGE = re.compile(r"^(https?://|/)[^\s\"'<>]*$|^data:image/[a-z+]+;base64,[A-Za-z0-9+/=]+$")


def safe_color(value: str | None) -> str | None:
    """``value`` when it is a plain CSS colour, else ``None``."""
    return value if value and _SAFE_COLOR.match(value) else None


def safe_image(value: str | None) -> str | None:
    """``value`` when it is an http(s), root-relative or ``data:image`` URL, else ``None``."""
    return value if value and _SAFE_IMAGE.match(value) else None


_INPUT_ATTRIBUTES = frozenset(
    {
        "type",
        "name",
        "id",
        "value",
        "placeholder",
        "autocomplete",
        "autofocus",
        "required",
        "minlength",
        "maxlength",
        "pattern",
        "min",
        "max",
        "step",
        "size",
        "inputmode",
        "spellcheck",
        "readonly",
        "disabled",
        "title",
        "dir",
        "lang",
    }
)
_INPUT_TYPES = frozenset(
    {"text", "password", "email", "tel", "number", "url", "search", "date", "hidden"}
)


def input_attributes(values: Mapping[str, Any]) -> str:
    """An ``<input>``'s attributes: only harmless ones (no URLs, scripts, styles or forms)."""
    parts = []
    for raw_name, value in values.items():
        name = raw_name.lower()
        if value is None or value is False:
            continue
        if name not in _INPUT_ATTRIBUTES and not re.fullmatch(r"(aria|data)-[a-z0-9-]+", name):
            continue
        if name == "type" and str(value).lower() not in _INPUT_TYPES:
            value = "text"
        parts.append(escape(name) if value is True else f'{escape(name)}="{escape(str(value))}"')
    return " ".join(parts)


def shell(title: str, body: str, theme: Theme, _: Translator, script: str = "") -> str:
    """The whole page: ``body`` in the themed card, in the language of ``_``."""
    style = []
    if color := safe_color(theme.brand_color):
        style.append(f"--brand-color:{color}")
    if color := safe_color(theme.button_text):
        style.append(f"--button-text-color:{color}")
    logo = safe_image(theme.logo)
    logo_html = f'<img class="logo" src="{escape(logo)}" alt="">' if logo else ""
    scheme = theme.color_scheme if theme.color_scheme in ("auto", "dark", "light") else "auto"
    return (
        f'<!DOCTYPE html><html lang="{escape(_.language)}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head>"
        f'<body class="theme-{scheme}" style="{escape(";".join(style))}">'
        f'<div class="page">{logo_html}<div class="card">{body}</div></div>{script}</body></html>'
    )


def hidden(name: str, value: str | None) -> str:
    """A hidden field (nothing for ``None``)."""
    if value is None:
        return ""
    return f'<input type="hidden" name="{escape(name)}" value="{escape(value)}">'


def banner(text: str, kind: str = "error") -> str:
    """A message above a form (``kind``: ``error`` or ``info``); nothing for no text."""
    return f'<p class="{kind}" role="alert">{escape(text)}</p>' if text else ""


def link_button(url: str, text: str, **attributes: str) -> str:
    """A link drawn as a button (``attributes``: ``id`` and the like)."""
    extra = "".join(f' {escape(k)}="{escape(v)}"' for k, v in attributes.items())
    return f'<a class="button" href="{escape(url)}"{extra}>{escape(text)}</a>'


def host_of(url: str) -> str:
    """``example.com:8443`` of ``https://example.com:8443``: how a link back names the site."""
    return url.partition("://")[2]


def debug_hint(hint: Mapping[str, str] | None) -> str:
    """With ``debug=True``: what most likely went wrong and its likely fix (``cause`` and
    ``fix``, fixed texts of :data:`~sansio_auth.errors.HINTS` for developers, in English)."""
    if not hint:
        return ""
    return (
        '<div class="debug"><p><b>Debug:</b> the cause and the likely fix (shown because '
        f"<code>debug=True</code>)</p><p>{_code_spans(hint['cause'])}</p>"
        f"<p><b>Likely fix:</b> {_code_spans(hint['fix'])}</p></div>"
    )


def _code_spans(text: str) -> str:
    """``text`` escaped, with its backquoted parts as ``<code>``."""
    parts = escape(text).split("`")
    return "".join(f"<code>{part}</code>" if i % 2 else part for i, part in enumerate(parts))
