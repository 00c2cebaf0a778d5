"""Passkeys through the Django ``handle`` middleware, under Django's WSGI and ASGI handlers."""

from __future__ import annotations

from typing import Any

import pytest

from io_bindings.django import DjangoAuth
from tests.io_bindings.django.handle_client import handle_client
from tests.io_bindings.passkeys import check_passkey_round_trip, passkey_config

urlpatterns: list[Any] = []


@pytest.mark.parametrize("mode", ["wsgi", "asgi"])
def test_passkey_round_trip_through_handle(mode: str) -> None:
    handle = DjangoAuth(passkey_config()).handle
    with handle_client(handle, mode, __name__) as http:
        check_passkey_round_trip(http, "/auth")
