"""The languages of the built-in pages and account e-mails: which one a request gets, and the
messages in it.

The catalogues are standard gettext. ``sansio_auth/i18n/<language>.po`` is what translators
edit (``messages.pot`` lists every message, extracted from the source); ``make translations``
(``tools/translations.py``) compiles each into ``_<language>.py``, a module holding the
catalogue's ``.mo`` bytes, which is imported the first time a page needs that language: the
engine reads no file. English is the messages' own language and has no catalogue.

A request's language is the framework's active one when the binding passes it
(:attr:`~sansio_auth.Request.language`), else the best of ``Accept-Language``; each is looked
up among the offered languages as RFC 4647 "lookup" does (``de-CH``, then ``de``), and the
first offered language is the default.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from gettext import GNUTranslations
from io import BytesIO
from typing import Any, Protocol

from ..errors import Configuration

SHIPPED = ("en", "de", "fr", "es", "ja")
"""The languages whose catalogues come with the package, English (the default) first."""

_TAG = re.compile(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*")
_MAX_RANGES = 32
"""How many entries of ``Accept-Language`` are read (a longer header is cut there)."""


class Catalogue(Protocol):
    """What a language's messages are looked up in: a ``gettext.GNUTranslations`` (for
    example ``gettext.translation("sansio_auth", localedir, ["pt"])``) or anything alike."""

    def gettext(self, message: str, /) -> str:
        """The translation of ``message``."""
        ...  # pragma: no cover

    def ngettext(self, singular: str, plural: str, n: int, /) -> str:
        """The translation of ``singular`` or ``plural``, by the language's rule for ``n``."""
        ...  # pragma: no cover


class Translator:
    """The messages of one language. ``_("Sign in with {provider}", provider=name)`` is the
    translation with the values put in; ``_.plural(one, other, n)`` picks by ``n`` (which
    the text may show as ``{n}``). Without a catalogue the messages are as written."""

    __slots__ = ("_catalogue", "language")

    def __init__(self, language: str, catalogue: Catalogue | None = None) -> None:
        self.language = language
        """The language's tag, as ``<html lang>`` takes it."""
        self._catalogue = catalogue

    def __call__(self, message: str, /, **values: Any) -> str:
        text = self._catalogue.gettext(message) if self._catalogue is not None else message
        return text.format(**values) if values else text

    def plural(self, singular: str, plural: str, n: int, /, **values: Any) -> str:
        """The text for ``n`` of something (``{n}`` in it is ``n``)."""
        if self._catalogue is not None:
            text = self._catalogue.ngettext(singular, plural, n)
        else:
            text = singular if n == 1 else plural
        return text.format(n=n, **values)

    def __repr__(self) -> str:
        return f"Translator({self.language!r})"


ENGLISH = Translator("en")
"""The messages as written."""


def N_(message: str) -> str:  # noqa: N802 - gettext's name for it, which the extractor knows
    """``message`` itself: marks a message kept in a table for the catalogues; it is
    translated where it is shown."""
    return message


@cache
def shipped_catalogue(language: str) -> Catalogue:
    """The catalogue of a language of :data:`SHIPPED` but English, from its compiled module."""
    from . import _de, _es, _fr, _ja  # the compiled catalogues: read when a page needs one

    compiled = {"de": _de.MO, "es": _es.MO, "fr": _fr.MO, "ja": _ja.MO}
    if language not in compiled:
        raise ValueError(f"no catalogue of {language!r} comes with sansio-auth")
    return GNUTranslations(BytesIO(base64.b64decode(compiled[language])))


def offered(
    languages: Sequence[str] | None, translations: Mapping[str, Catalogue] | None
) -> tuple[tuple[str, ...], dict[str, Catalogue]]:
    """The configuration's ``languages`` (default: the shipped ones, then those of
    ``translations``) and ``translations`` (language → catalogue), checked."""
    own = dict(translations or {})
    for language, catalogue in own.items():
        if not isinstance(language, str) or not _TAG.fullmatch(language):
            raise Configuration(f"`translations` has a key that is no language tag: {language!r}")
        if not callable(getattr(catalogue, "gettext", None)) or not callable(
            getattr(catalogue, "ngettext", None)
        ):
            raise Configuration(
                f"`translations[{language!r}]` must have `gettext` and `ngettext` methods "
                "(a gettext.GNUTranslations, for example)"
            )
    known = (*SHIPPED, *(tag for tag in own if tag not in SHIPPED))
    if languages is None:
        return known, own
    if isinstance(languages, str):
        raise Configuration("`languages` must be a list of language tags, not one string")
    chosen = tuple(languages)
    unknown = [tag for tag in chosen if tag not in known]
    if unknown or not chosen:
        raise Configuration(
            f"`languages` names languages without a catalogue: {unknown} (known: "
            f"{', '.join(known)}; add one with `translations`)"
            if unknown
            else "`languages` is empty: name at least one language"
        )
    return chosen, own


def translator(language: str, translations: Mapping[str, Catalogue]) -> Translator:
    """The translator of ``language``: its catalogue from ``translations``, else the shipped
    one, else (English) none."""
    catalogue = translations.get(language)
    if catalogue is None and language in SHIPPED[1:]:
        catalogue = shipped_catalogue(language)
    return Translator(language, catalogue)


def accepted(header: str | None) -> list[str]:
    """The language ranges of an ``Accept-Language`` header, most wanted first (by ``q``, then
    by order); malformed entries, ``*`` and ``q=0`` are left out."""
    if not header:
        return []
    ranked: list[tuple[float, int, str]] = []
    for index, entry in enumerate(header.split(",")[:_MAX_RANGES]):
        tag, _, params = entry.strip().partition(";")
        tag = tag.strip()
        quality = 1.0
        if params:
            name, _, value = params.strip().partition("=")
            try:
                quality = float(value) if name.strip().lower() == "q" else -1.0
            except ValueError:
                quality = -1.0
        if _TAG.fullmatch(tag) and 0 < quality <= 1:
            ranked.append((-quality, index, tag))
    return [tag for _, _, tag in sorted(ranked)]


def lookup(wanted: Iterable[str], offered: Sequence[str]) -> str | None:
    """The first offered language matching a wanted one, each tried whole and then shortened
    (``de-CH`` → ``de``); case does not matter, ``_`` counts as ``-``."""
    by_lower = {tag.lower(): tag for tag in offered}
    for tag in wanted:
        parts = tag.replace("_", "-").lower().split("-")
        while parts:
            found = by_lower.get("-".join(parts))
            if found is not None:
                return found
            parts.pop()
            if parts and len(parts[-1]) == 1:  # a singleton ("x-") never ends a tag
                parts.pop()
    return None


def choose(offered: Sequence[str], *, framework: str | None, accept_language: str | None) -> str:
    """The language of a request among ``offered`` (the first is the default): the framework's
    active language when the binding gives one, else the best of ``Accept-Language``."""
    wanted = [framework] if framework else accepted(accept_language)
    return lookup(wanted, offered) or offered[0]
