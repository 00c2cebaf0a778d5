"""The catalogues of the built-in pages: every message of every page has a translation in each
shipped catalogue (with the same placeholders), the ``.po`` files, the template and the
compiled modules agree, and every text a page shows is a message or data of its context."""

from __future__ import annotations

import base64
import string
from html.parser import HTMLParser
from typing import Any

import pytest

from sansio_auth import Theme
from sansio_auth.http import Page
from sansio_auth.i18n import SHIPPED, Translator, shipped_catalogue
from sansio_auth.pages import RENDERERS, render
from sansio_auth.pages._shell import host_of
from sansio_auth.pages.sign_in import EMAIL_PLACEHOLDER
from tests.sansio_auth.page_samples import samples
from tools import translations as tool

LANGUAGES = SHIPPED[1:]


@pytest.fixture(scope="module")
def template() -> Any:
    return tool.extracted()


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_the_template_lists_every_message_of_the_source(template: Any) -> None:
    committed = tool.read(tool.TEMPLATE)
    assert {m.id for m in committed} == {m.id for m in template}, "run `make translations`"
    assert len(template) > 150  # pages, e-mails and the passkey script's messages


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_has_a_translation(language: str, template: Any) -> None:
    catalog = tool.read(tool.po_path(language), language)
    assert {m.id for m in catalog} == {m.id for m in template}, "run `make translations`"
    assert tool.untranslated(catalog) == []
    for message in catalog:
        if not message.id:
            continue
        if isinstance(message.id, str):
            assert placeholders(message.string) == placeholders(message.id), message.id
        else:
            assert len(message.string) == catalog.num_plurals, message.id
            for form in message.string:
                assert placeholders(form) == placeholders(message.id[1]), message.id


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_module_is_the_po_file(language: str) -> None:
    catalog = tool.read(tool.po_path(language), language)
    from importlib import import_module

    module = import_module(f"sansio_auth.i18n._{language}")
    assert base64.b64decode(module.MO) == tool.compiled(catalog), "run `make translations`"
    assert tool.module_path(language).read_text() == tool.module_text(
        language, tool.compiled(catalog)
    )


def test_the_engine_reads_only_shipped_catalogues() -> None:
    with pytest.raises(ValueError, match="no catalogue"):
        shipped_catalogue("xx")
    assert shipped_catalogue("de").gettext("Sign in") == "Anmelden"


def test_the_extractor_sees_messages_in_f_strings_and_plurals() -> None:
    source = (
        "x = f\"<h1>{_('Title')}</h1>\"\n"
        "y = N_('In a table')\n"
        "z = _.plural('{n} day', '{n} days', n)\n"
        "w = _(name)\n"  # not a literal: not a message
    )
    assert [m for _, m in tool.messages_in(source)] == [
        "Title",
        "In a table",
        ("{n} day", "{n} days"),
    ]


# -- every text a page shows is a message ----------------------------------------------------------


class Marked:
    """A catalogue that marks every message it translates: ``⟦message⟧``."""

    def gettext(self, message: str) -> str:
        return f"⟦{message}⟧"

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return f"⟦{singular if n == 1 else plural}⟧"


MARKED = Translator("x-marked", Marked())
VISIBLE_ATTRIBUTES = ("title", "placeholder", "alt", "aria-label")


class Texts(HTMLParser):
    """The texts a person sees (or hears) on a page: text outside ``<style>``, ``<script>``
    and the debug block (developers' English), visible attributes and the passkey script's
    messages on its error box."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self.lang: str | None = None
        self._skip: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "html":
            self.lang = values.get("lang")
        if tag in ("style", "script") or values.get("class") == "debug":
            self._skip.append(tag)
        self.texts += [v for k, v in attrs if v and (k in VISIBLE_ATTRIBUTES)]
        if "data-webauthn-error" in values:
            self.texts += [
                v for k, v in attrs if v and k.startswith("data-") and k != "data-webauthn-error"
            ]

    def handle_endtag(self, tag: str) -> None:
        if self._skip and self._skip[-1] == tag:
            self._skip.pop()

    def handle_data(self, data: str) -> None:
        if not self._skip and data.strip():
            self.texts.append(data)


def data_of(value: Any) -> set[str]:
    """Every string a context holds (and how a page names a site: its host)."""
    if isinstance(value, dict):
        return set().union(*(data_of(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(data_of(v) for v in value)) if value else set()
    if isinstance(value, str):
        return {value, host_of(value), value.split(" ", 1)[0]}
    if isinstance(value, int) and not isinstance(value, bool):
        return {str(value)}
    return set()


def unmarked(text: str) -> str:
    """``text`` without its ``⟦messages⟧`` and punctuation."""
    while "⟦" in text:
        start = text.index("⟦")
        text = text[:start] + " " + text[text.index("⟧", start) + 1 :]
    return text.strip(" ·—:()\n")


SAMPLES = samples()


def test_the_samples_draw_every_page() -> None:
    assert {name for name, _ in SAMPLES} == set(RENDERERS)


@pytest.mark.parametrize(("name", "context"), SAMPLES, ids=[name for name, _ in SAMPLES])
def test_every_text_a_page_shows_is_a_message(name: str, context: dict[str, Any]) -> None:
    page = Texts(render(Page(name, context), Theme(), MARKED))
    assert page.lang == "x-marked"
    known = data_of(context) | {EMAIL_PLACEHOLDER}
    for text in page.texts:
        rest = unmarked(text)
        assert not rest or rest in known, f"{name}: {text!r} is neither a message nor data"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_draws_in_every_language(language: str) -> None:
    translator = Translator(language, shipped_catalogue(language))
    for name, context in SAMPLES:
        page = Texts(render(Page(name, context), Theme(), translator))
        assert page.lang == language
        english = Texts(render(Page(name, context), Theme(), Translator("en")))
        assert page.texts != english.texts, name
