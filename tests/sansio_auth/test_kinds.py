"""Each kind of provider is registered once with its record type and its flows."""

import pytest

from sansio_auth._flows import kinds
from sansio_auth.errors import Configuration
from sansio_auth.providers import PROVIDER_KINDS, Credentials, Email, Keycloak


def test_every_record_type_has_its_flows():
    assert {name: kind.record for name, kind in kinds.KINDS.items()} == PROVIDER_KINDS


def test_what_each_kind_accepts():
    accepted = {
        name: (kind.sign_in is not None, sorted(kind.callback_methods))
        for name, kind in kinds.KINDS.items()
    }
    assert accepted == {
        "credentials": (False, ["POST"]),
        "email": (True, ["GET"]),
        "oauth": (True, ["GET", "POST"]),
        "oidc": (True, ["GET", "POST"]),
        "webauthn": (False, ["POST"]),
        "password": (False, ["POST"]),
    }


def test_a_record_of_its_kind_or_a_subtype_is_taken():
    provider = Keycloak(issuer="https://sso.example/realms/r")
    assert kinds.KINDS["oidc"].record_of(provider) is provider
    assert kinds.KINDS["oauth"].record_of(provider) is provider


@pytest.mark.parametrize(
    ("kind", "provider"),
    [
        ("credentials", Email(send_verification_request=print)),
        ("email", Credentials()),
        ("oauth", Credentials()),
        ("oidc", Email(send_verification_request=print)),
    ],
)
def test_a_record_of_another_type_is_refused(kind, provider):
    with pytest.raises(Configuration, match=f"has type {provider.type!r} but is not a"):
        kinds.KINDS[kind].record_of(provider)
