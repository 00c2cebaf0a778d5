"""What ``make docs`` writes into the Auth.js migration guide (docs/migrate-authjs.md): the
option-by-option name mapping, generated from the configuration records
(:class:`sansio_auth.AuthConfig` and the records of its nested options), and the providers'
differences from Auth.js, from the service rows.

``tests/docs/test_migration.py`` fails while the guide is stale, and checks every Auth.js
name against ``@auth/core``'s own type declarations.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sansio_auth import AuthConfig
from sansio_auth.providers.email_apis import COMMON_DIFFERENCE, EMAIL_APIS

from .catalogue import service_modules

ROOT = Path(__file__).parents[1]
GUIDE = ROOT / "docs" / "migrate-authjs.md"
OPTIONS = ("<!-- the options: generated from the config records by `make docs`, do not edit -->",
           "<!-- end of the options -->")  # fmt: skip
PROVIDERS = ("<!-- the providers: generated from the service rows by `make docs`, do not edit -->",
             "<!-- end of the providers -->")  # fmt: skip

AUTHJS_NAMES = {"skip_csrf_check": "skipCSRFCheck"}
"""Our options whose Auth.js name is not the camelCase of ours."""
NEXT_AUTH_ONLY = {"callbacks.authorized"}
"""Options of next-auth's configuration (``NextAuthConfig``) that ``@auth/core`` lacks."""
NOT_IN_AUTHJS = {
    "two_factor": "two-factor authentication ([accounts](accounts.md))",
    "session.revocation": "revocable JWT sessions ([sessions](sessions.md#revocable-sessions))",
    "session.revocation_cache_ttl": "how long a revocation check is reused",
    "events.token_refreshed": "a provider's access token was refreshed ([sessions](sessions.md))",
    "events.rate_limited": "a request was refused by a rate limit "
    "([security](security.md#rate-limits))",
    "session.fresh_age": "how recent a sign-in must be to unlink an account or delete the "
    "user ([accounts](accounts.md#fresh-sign-ins))",
    "session.track_ip_address": "keep each session's client address for the user's list of "
    "sessions ([accounts](accounts.md#a-users-own-sessions-and-linked-accounts))",
    "pages.security": "the page of a user's own sessions and linked accounts "
    "([accounts](accounts.md#a-users-own-sessions-and-linked-accounts))",
    "events.revoke_sessions": "the user ended sessions of theirs ([accounts](accounts.md#events))",
    "events.unlink_account": "the user unlinked an account ([accounts](accounts.md#events))",
    "events.delete_user": "the user deleted themselves ([accounts](accounts.md#events))",
    "single_flight": "where concurrent refreshes of one refresh token meet across processes "
    "([deployment](deployment.md#what-is-shared-and-where))",
    "deadlines": "time limits on the provider, callbacks, the database and a whole sign-in "
    "([security](security.md#deadlines))",
    "rate_limits": "brute-force protection ([security](security.md#rate-limits))",
    "languages": "the languages of the built-in pages ([languages](languages.md))",
    "translations": "catalogues of your own for the built-in pages "
    "([languages](languages.md#adding-a-language))",
}
"""Our options that Auth.js does not have, with what they are for."""
NOT_HERE = {
    "raw": "a marker for Auth.js's framework integrations, which then get its internal "
    "response instead of a web `Response`: every entry point here answers the engine's "
    "`Response` record",
}
"""Auth.js's options that have no counterpart here, and why."""


def camel(name: str) -> str:
    """``max_age`` → ``maxAge``."""
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


def record_of(hint: Any) -> type | None:
    """The configuration record among the types an option takes (``Callbacks | Mapping``)."""
    for candidate in (hint, *typing.get_args(hint)):
        if dataclasses.is_dataclass(candidate) and isinstance(candidate, type):
            return candidate
    return None


def options(record: type = AuthConfig, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every option: its dotted name (``session.max_age``) and default, nested records opened."""
    hints = typing.get_type_hints(record)
    for field in dataclasses.fields(record):
        name = prefix + field.name
        nested = record_of(hints[field.name])
        if nested is not None and name not in NOT_IN_AUTHJS:
            yield from options(nested, name + ".")
            continue
        if field.default_factory is not dataclasses.MISSING:
            yield name, field.default_factory()
        else:
            yield name, field.default


def authjs_name(option: str) -> str | None:
    """The Auth.js name of ``option`` (``session.maxAge``), or ``None`` when it has none."""
    if option in NOT_IN_AUTHJS:
        return None
    return ".".join(AUTHJS_NAMES.get(part, camel(part)) for part in option.split("."))


def _default(value: Any) -> str:
    if value is None or value == {} or value == ():
        return "none"
    if dataclasses.is_dataclass(value):  # a record of options not in Auth.js: its defaults
        return f"`{type(value).__name__}()`"
    return f"`{value!r}`"


def options_table() -> str:
    """The mapping, one row per option (nested ones by their dotted name)."""
    out = [OPTIONS[0], "", "| Auth.js | sansio-auth | default |", "|---|---|---|"]
    for option, default in options():
        theirs = authjs_name(option)
        shown = f"`{theirs}`" if theirs else f"(not in Auth.js: {NOT_IN_AUTHJS[option]})"
        if option in NEXT_AUTH_ONLY:
            shown += " (next-auth)"
        out.append(f"| {shown} | `{option}` | {_default(default)} |")
    for theirs, why in NOT_HERE.items():
        out.append(f"| `{theirs}` | (none: {why}) | |")
    return "\n".join([*out, "", OPTIONS[1]])


def providers_list() -> str:
    """Each provider that behaves otherwise than Auth.js's, and how."""
    out = [PROVIDERS[0], ""]
    for _, row in service_modules():
        if row.differs:
            out.append(f"* **{row.name}** (`{row.id}`): {_md(row.differs)}")
    apis = ", ".join(api.name for api in EMAIL_APIS.values())
    out.append(f"* **The e-mail APIs** ({apis}): {_md(COMMON_DIFFERENCE)}")
    out += [f"* **{api.name}** (`{api.id}`): {_md(api.differs)}" for api in EMAIL_APIS.values()
            if api.differs]  # fmt: skip
    return "\n".join([*out, "", PROVIDERS[1]])


def _md(text: str) -> str:
    return re.sub(r"``([^`]+)``", r"`\1`", text)


def _replaced(text: str, markers: tuple[str, str], part: str) -> str:
    start, end = text.index(markers[0]), text.index(markers[1]) + len(markers[1])
    return text[:start] + part + text[end:]


def guide_with_tables(text: str) -> str:
    """``text`` (the guide) with its generated parts made afresh."""
    return _replaced(_replaced(text, OPTIONS, options_table()), PROVIDERS, providers_list())


def main() -> None:
    """Write the guide's generated parts."""
    GUIDE.write_text(guide_with_tables(GUIDE.read_text()))


if __name__ == "__main__":
    main()
