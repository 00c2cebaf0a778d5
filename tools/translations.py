"""The catalogues of the built-in pages and account e-mails (``sansio_auth/i18n``): extract the
messages, bring each language's ``.po`` up to date, and compile it for the engine.

``python -m tools.translations`` (``make translations``) does all three:

1. every message of ``sansio_auth`` (the strings passed to ``_``, ``N_`` and ``_.plural``)
   goes into ``sansio_auth/i18n/messages.pot``;
2. each ``sansio_auth/i18n/<language>.po`` gets the new messages (untranslated) and loses
   the ones no page uses any more;
3. each ``.po`` is compiled to ``sansio_auth/i18n/_<language>.py``: its ``.mo`` bytes as
   base64, which the engine reads with :class:`gettext.GNUTranslations` (no file at run time).

``tests/sansio_auth/test_translations.py`` fails while a message has no translation in a
shipped catalogue, or a compiled module is not what this writes. Needs Babel (the ``test``
extra has it).
"""

from __future__ import annotations

import ast
import base64
import sys
import textwrap
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path

from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from sansio_auth.i18n import SHIPPED

ROOT = Path(__file__).parents[1]
PACKAGE = ROOT / "sansio_auth"
CATALOGUES = PACKAGE / "i18n"
TEMPLATE = CATALOGUES / "messages.pot"
LINE = 76
"""Characters of base64 per line of a compiled module."""
PROJECT, AUTHORS = "sansio-auth", "the sansio-auth authors"


def po_path(language: str) -> Path:
    """Where the catalogue of ``language`` is kept."""
    return CATALOGUES / f"{language}.po"


def module_path(language: str) -> Path:
    """Where the compiled catalogue of ``language`` is written."""
    return CATALOGUES / f"_{language.replace('-', '_')}.py"


def messages_in(source: str) -> Iterator[tuple[int, str | tuple[str, str]]]:
    """The messages of one module's source and their lines: the string literals passed to
    ``_`` and ``N_``, and the two passed to a ``plural`` method (f-strings included: the
    syntax tree is read, not the tokens)."""
    calls = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)]
    for node in sorted(calls, key=lambda call: (call.lineno, call.col_offset)):
        texts = [_literal(arg) for arg in node.args[:2]]
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("_", "N_") and texts and texts[0]:
            yield node.lineno, texts[0]
        elif isinstance(func, ast.Attribute) and func.attr == "plural" and len(texts) == 2:
            singular, plural = texts
            if singular and plural:
                yield node.lineno, (singular, plural)


def _literal(node: ast.expr) -> str | None:
    """The string a literal argument is, else ``None``."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def extracted() -> Catalog:
    """Every message of the engine's source, with the modules that use it."""
    template = Catalog(project=PROJECT, copyright_holder=AUTHORS, fuzzy=False)
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        for line, message in messages_in(path.read_text()):
            template.add(message, None, [(where, line)])
    return template


def read(path: Path, language: str | None = None) -> Catalog:
    """The catalogue in ``path``."""
    with path.open("rb") as file:
        return read_po(file, locale=language)


def write(catalog: Catalog, path: Path) -> None:
    """Write ``catalog`` as a ``.po`` (or ``.pot``) file, one reference per line."""
    with path.open("wb") as file:
        write_po(file, catalog, width=100, sort_by_file=True, include_lineno=False)


def updated(language: str, template: Catalog) -> Catalog:
    """The catalogue of ``language`` with the template's messages (new ones untranslated,
    unused ones dropped); a new catalogue when there is none yet."""
    path = po_path(language)
    if path.exists():
        catalog = read(path, language)
    else:
        catalog = Catalog(locale=language, project=PROJECT, copyright_holder=AUTHORS)
    catalog.update(template, no_fuzzy_matching=True)
    catalog.obsolete.clear()
    catalog.fuzzy = False
    catalog.language_team = Locale.parse(language).english_name or language
    return catalog


def compiled(catalog: Catalog) -> bytes:
    """The ``.mo`` bytes of ``catalog`` (untranslated and fuzzy messages left out)."""
    buffer = BytesIO()
    write_mo(buffer, catalog)
    return buffer.getvalue()


def module_text(language: str, mo: bytes) -> str:
    """The module holding ``mo``, the compiled catalogue of ``language``."""
    data = "\n".join(textwrap.wrap(base64.b64encode(mo).decode("ascii"), LINE))
    return (
        f'"""The catalogue of {language!r}: the .mo bytes of ``{language}.po``, base64.\n\n'
        'Written by ``python -m tools.translations``; do not edit."""\n\n'
        f'MO = """\\\n{data}\n"""\n'
    )


def untranslated(catalog: Catalog) -> list[str | tuple[str, ...]]:
    """The messages of ``catalog`` without a translation (or with a fuzzy one, or a plural
    form missing)."""
    missing = []
    for message in catalog:
        if not message.id:
            continue
        forms = message.string if isinstance(message.string, tuple | list) else [message.string]
        if message.fuzzy or not all(forms):
            missing.append(message.id if isinstance(message.id, str) else tuple(message.id))
    return missing


def main(languages: list[str]) -> None:
    """Extract, update and compile the catalogues of ``languages`` (default: the shipped
    ones; a language with no ``.po`` yet gets one, to translate)."""
    template = extracted()
    if TEMPLATE.exists() and _listing(read(TEMPLATE)) == _listing(template):
        template.creation_date = read(TEMPLATE).creation_date  # nothing new: files unchanged
    write(template, TEMPLATE)
    for language in languages or SHIPPED[1:]:
        catalog = updated(language, template)
        write(catalog, po_path(language))
        module_path(language).write_text(module_text(language, compiled(catalog)))
        missing = len(untranslated(catalog))
        print(f"{language}: {len(catalog) - 1 - missing} translated, {missing} to do")


def _listing(catalog: Catalog) -> list[tuple[object, object]]:
    return [(message.id, message.locations) for message in catalog]


if __name__ == "__main__":
    main(sys.argv[1:])
