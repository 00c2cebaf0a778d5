"""Start-up messages name what the user wrote: an option left at its default is said to be
one (``on by default``), never reported as if it had been set, and ``two_factor={}``, whose
default covers the single-factor ways in, refuses no set of providers that starts without it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from io_bindings.db.memory import MemoryAdapter
from sansio_auth import AuthConfig, Engine
from sansio_auth.errors import Configuration, DuplicateConditionalUI, MissingWebAuthnAutocomplete
from sansio_auth.providers import Email, GitHub, Passkey, Password, WebAuthn
from sansio_auth.testing import SECRET, Clock, seeded_entropy

ENABLED = {"enable_webauthn": True}


def send(**_: Any) -> None:
    """A sender that takes every keyword (``message`` included)."""


def send_link(identifier: str, url: str) -> None:
    """An e-mail provider's sender of Auth.js's shape: no ``message``."""


def engine(*providers: Any, **options: Any) -> Engine:
    options.setdefault("adapter", MemoryAdapter())
    config = AuthConfig(secret=SECRET, trust_host=True, providers=list(providers), **options)
    return Engine(config, clock=Clock(), entropy=seeded_entropy(0))


def test_two_factor_with_only_an_oauth_provider_starts() -> None:
    """No password provider is needed: the default covers the single-factor ways in, of
    which there is none here, and names no provider the user did not."""
    started = engine(GitHub(client_id="id", client_secret="secret"), two_factor={})
    assert started.settings.two_factor is not None
    assert started.settings.two_factor.providers == "single-factor"


PROVIDERS = {
    "github": lambda: GitHub(client_id="id", client_secret="secret"),
    "passkey": Passkey,
    "email": lambda: Email(send_verification_request=send),
    "password": lambda: Password(send_email=send),
}


@settings(max_examples=30, deadline=None)
@given(st.sets(st.sampled_from(sorted(PROVIDERS)), min_size=1))
def test_two_factor_defaults_refuse_no_providers_that_start_without_them(names: set[str]) -> None:
    providers = [PROVIDERS[name]() for name in sorted(names)]
    engine(*providers, experimental=ENABLED)
    started = engine(*providers, experimental=ENABLED, two_factor={})
    assert started.settings.two_factor is not None


def test_a_password_provider_without_a_sender_names_the_sender_it_found() -> None:
    with pytest.raises(Configuration) as found:
        engine(Password(), Email(send_verification_request=send_link))
    assert str(found.value).startswith(
        "the password provider 'password' has no `send_email`, and the e-mail provider "
        "'email''s `send_verification_request` does not accept `message`"
    )
    with pytest.raises(Configuration, match="'password': `send_email` must accept `message`"):
        engine(Password(send_email=send_link))
    with pytest.raises(Configuration, match="needs a `send_email` that accepts `message`"):
        engine(Password())


def test_conditional_ui_left_on_by_default_is_said_to_be_a_default() -> None:
    with pytest.raises(DuplicateConditionalUI) as found:
        engine(Passkey(), WebAuthn(), experimental=ENABLED)
    assert "passkey, webauthn" in str(found.value)
    assert "`enable_conditional_ui`, on by default" in str(found.value)
    assert "set to True" not in str(found.value)
    fields = {"email": {"label": "Email", "autocomplete": "username"}}
    with pytest.raises(MissingWebAuthnAutocomplete) as found:
        engine(Passkey(form_fields=fields), experimental=ENABLED)
    assert "'passkey'" in str(found.value)
    assert "`enable_conditional_ui`, on by default" in str(found.value)
    assert "set enable_conditional_ui=False" in str(found.value)
