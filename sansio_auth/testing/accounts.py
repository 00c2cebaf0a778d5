"""A credentials ``authorize`` over a table of accounts, for tests."""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterable, Mapping
from typing import Any

ANN: dict[str, str] = {
    "username": "ann",
    "password": "pw",
    "id": "1",
    "name": "Ann",
    "email": "ann@example.com",
}
"""An account: ``username``/``password`` to sign in with, the rest is the user."""


def authorize_from(accounts: Iterable[Mapping[str, Any]]) -> Callable[..., Any]:
    """An ``authorize`` callback that accepts the ``username``/``password`` of ``accounts``
    and returns the account's other fields as the user (``None`` otherwise).

    ``accounts`` is read at each call, so a list you append to later is honoured.
    """

    def authorize(credentials: Mapping[str, Any]) -> Any:
        username, password = credentials.get("username"), credentials.get("password")
        for account in accounts:
            if (
                account["username"] == username
                and isinstance(password, str)
                and hmac.compare_digest(account["password"].encode(), password.encode())
            ):
                return {k: v for k, v in account.items() if k not in ("username", "password")}
        return None

    return authorize
