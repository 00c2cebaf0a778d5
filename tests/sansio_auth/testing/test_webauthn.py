"""The software authenticator's responses verify with py_webauthn alone (not through the
engine), carry the flags and counter asked for, and come out the same for the same seed."""

from __future__ import annotations

import pytest
from webauthn import verify_authentication_response, verify_registration_response
from webauthn.helpers import parse_attestation_object, parse_authenticator_data

from sansio_auth.oauth.checks import b64url, unb64url
from sansio_auth.testing import seeded_entropy
from sansio_auth.testing.webauthn import SoftAuthenticator

ORIGIN = "https://app.example.com"
RP = "app.example.com"


def creation_options(challenge: bytes = b"c" * 32, **extra):
    return {
        "challenge": b64url(challenge),
        "rp": {"name": "App", "id": RP},
        "user": {"id": "user-handle", "name": "ann", "displayName": "Ann"},
        "pubKeyCredParams": [{"alg": -8, "type": "public-key"}, {"alg": -7, "type": "public-key"}],
        **extra,
    }


def request_options(challenge: bytes = b"r" * 32, **extra):
    return {"challenge": b64url(challenge), "rpId": RP, **extra}


@pytest.mark.parametrize("attestation", ["none", "packed"])
@pytest.mark.parametrize("algorithm", ["ES256", "EdDSA"])
def test_responses_verify_with_py_webauthn(algorithm, attestation):
    key = SoftAuthenticator(entropy=seeded_entropy(1), algorithm=algorithm, attestation=attestation)
    registration = key.register(creation_options(), origin=ORIGIN)
    assert parse_attestation_object(
        unb64url(registration["response"]["attestationObject"])
    ).fmt == (attestation)
    verified = verify_registration_response(
        credential=registration,
        expected_challenge=b"c" * 32,
        expected_rp_id=RP,
        expected_origin=ORIGIN,
        require_user_verification=True,
    )
    assert verified.credential_id == unb64url(registration["id"])
    assert verified.sign_count == 0
    for count in (1, 2):
        assertion = key.authenticate(request_options(), origin=ORIGIN)
        checked = verify_authentication_response(
            credential=assertion,
            expected_challenge=b"r" * 32,
            expected_rp_id=RP,
            expected_origin=ORIGIN,
            credential_public_key=verified.credential_public_key,
            credential_current_sign_count=count - 1,
            require_user_verification=True,
        )
        assert checked.new_sign_count == count
    assert unb64url(assertion["response"]["userHandle"]) == b"user-handle"


def test_flags_are_what_was_asked():
    key = SoftAuthenticator(entropy=seeded_entropy(2), user_verified=False, backed_up=True)
    registration = key.register(creation_options(), origin=ORIGIN)
    flags = parse_attestation_object(unb64url(registration["response"]["attestationObject"]))
    assert (flags.auth_data.flags.up, flags.auth_data.flags.uv) == (True, False)
    assert (flags.auth_data.flags.be, flags.auth_data.flags.bs) == (True, True)
    assertion = key.authenticate(request_options(), origin=ORIGIN, user_present=False)
    data = parse_authenticator_data(unb64url(assertion["response"]["authenticatorData"]))
    assert (data.flags.up, data.flags.uv) == (False, False)


def test_the_same_seed_gives_the_same_bytes():
    def run():
        key = SoftAuthenticator(entropy=seeded_entropy("same"))
        return key.register(creation_options(), origin=ORIGIN), key.authenticate(
            request_options(), origin=ORIGIN
        )

    assert run() == run()
    other = SoftAuthenticator(entropy=seeded_entropy("other")).register(
        creation_options(), origin=ORIGIN
    )
    assert other["id"] != run()[0]["id"]


def test_the_authenticator_follows_the_options():
    key = SoftAuthenticator(entropy=seeded_entropy(3))
    first = key.register(creation_options(), origin=ORIGIN)
    excluded = creation_options(excludeCredentials=[{"id": first["id"], "type": "public-key"}])
    with pytest.raises(ValueError, match="InvalidStateError"):
        key.register(excluded, origin=ORIGIN)
    with pytest.raises(ValueError, match="does not offer"):
        key.register(creation_options(pubKeyCredParams=[{"alg": -257}]), origin=ORIGIN)
    second = key.register(creation_options(), origin=ORIGIN)
    allowed = request_options(allowCredentials=[{"id": first["id"], "type": "public-key"}])
    assert key.authenticate(allowed, origin=ORIGIN)["id"] == first["id"]
    assert key.authenticate(request_options(), origin=ORIGIN)["id"] == second["id"]
    with pytest.raises(LookupError, match="NotAllowedError"):
        key.authenticate({**request_options(), "rpId": "other.example"}, origin=ORIGIN)
    with pytest.raises(ValueError, match="algorithm"):
        SoftAuthenticator(entropy=seeded_entropy(3), algorithm="RS256")  # type: ignore[arg-type]
