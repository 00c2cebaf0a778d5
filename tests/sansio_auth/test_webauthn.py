"""WebAuthn / Passkey sign-in through the engine (authjs-facts §4.5, §6.9): registration
and authentication with a software authenticator, the options JSON and challenge cookie,
and every refusal leaving the database as it was."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import jwt
from sansio_auth._webauthn import resident_key
from sansio_auth.providers import Passkey, WebAuthn
from sansio_auth.testing import SECRET, seeded_entropy
from sansio_auth.testing.webauthn import SoftAuthenticator
from tests.sansio_auth.webauthn_peer import PasskeyPeer, error_of

ORIGIN = "http://localhost:3000"


def std_b64(b64url_id: str) -> str:
    raw = base64.urlsafe_b64decode(b64url_id + "=" * (-len(b64url_id) % 4))
    return base64.b64encode(raw).decode()


@pytest.mark.parametrize("strategy", ["database", "jwt"])
@pytest.mark.parametrize("attestation", ["none", "packed"])
@pytest.mark.parametrize("algorithm", ["ES256", "EdDSA"])
def test_register_then_authenticate(algorithm, attestation, strategy):
    key = SoftAuthenticator(
        entropy=seeded_entropy(algorithm), algorithm=algorithm, attestation=attestation
    )
    peer = PasskeyPeer.build(authenticator=key, session={"strategy": strategy})

    registered = peer.register("ann@example.com")
    assert registered.status == 302
    assert registered.location == ORIGIN
    assert peer.browser.session()["user"]["email"] == "ann@example.com"

    (credential,) = key.credentials.values()
    stored_id = std_b64(credential.id_b64url)
    (authenticator,) = peer.db.store.authenticators.values()
    (user,) = peer.db.store.users.values()
    assert authenticator["credential_id"] == stored_id
    assert authenticator["provider_account_id"] == stored_id
    assert authenticator["user_id"] == user["id"]
    assert authenticator["counter"] == 0
    assert authenticator["credential_device_type"] == "singleDevice"
    assert authenticator["credential_backed_up"] is False
    assert authenticator["transports"] == "internal,hybrid"
    assert base64.b64decode(authenticator["credential_public_key"]) == credential.cose_key()
    (account,) = peer.db.store.accounts.values()
    assert (account["provider"], account["type"]) == ("passkey", "webauthn")
    assert account["provider_account_id"] == stored_id
    assert user["email"] == "ann@example.com"

    peer.browser.sign_out()
    assert peer.browser.session() is None
    signed_in = peer.authenticate()
    assert signed_in.status == 302
    assert signed_in.location == ORIGIN
    assert peer.browser.session()["user"]["email"] == "ann@example.com"
    assert peer.db.store.authenticators[stored_id]["counter"] == 1
    assert len(peer.db.store.users) == 1


def test_a_synced_passkey_with_a_zero_counter_signs_in_again_and_again():
    key = SoftAuthenticator(entropy=seeded_entropy("synced"), counter_step=0, backed_up=True)
    peer = PasskeyPeer.build(authenticator=key)
    peer.register()
    (authenticator,) = peer.db.store.authenticators.values()
    assert authenticator["credential_device_type"] == "multiDevice"
    assert authenticator["credential_backed_up"] is True
    for _ in range(3):
        peer.browser.sign_out()
        assert peer.authenticate().location == ORIGIN
    assert authenticator["credential_id"] in peer.db.store.authenticators
    assert peer.db.store.authenticators[authenticator["credential_id"]]["counter"] == 0


def test_a_json_body_is_accepted_too():
    peer = PasskeyPeer.build()
    options = peer.options(action="register", email="ann@example.com").json()
    data = peer.authenticator.respond(options, origin=ORIGIN)
    response = peer.browser.post(
        "/auth/callback/passkey",
        json={"action": "register", "data": data, "csrfToken": peer.browser.csrf_token()},
    )
    assert response.location == ORIGIN
    assert peer.browser.session()["user"]["email"] == "ann@example.com"


# -- the options route --------------------------------------------------------------------------


def test_registration_options_are_simplewebauthn_s():
    peer = PasskeyPeer.build()
    response = peer.options(action="register", email="ann@example.com")
    assert response.status == 200
    assert response.header("content-type") == "application/json"
    body = response.json()
    assert body["action"] == "register"
    options = body["options"]
    assert list(options) == [
        "challenge",
        "rp",
        "user",
        "pubKeyCredParams",
        "timeout",
        "attestation",
        "excludeCredentials",
        "authenticatorSelection",
        "extensions",
    ]
    assert len(base64.urlsafe_b64decode(options["challenge"] + "=")) == 32
    assert options["rp"] == {"name": "localhost:3000", "id": "localhost"}
    assert options["user"]["name"] == options["user"]["displayName"] == "ann@example.com"
    assert len(options["user"]["id"]) == 64
    assert [p["alg"] for p in options["pubKeyCredParams"]] == [-8, -7, -257]
    assert options["timeout"] == 300000
    assert options["attestation"] == "none"
    assert options["excludeCredentials"] == []
    assert options["authenticatorSelection"] == {
        "residentKey": "required",
        "userVerification": "required",
        "requireResidentKey": True,
    }
    assert options["extensions"] == {"credProps": True}


def test_webauthn_prefers_what_passkey_requires():
    peer = PasskeyPeer.build(WebAuthn())
    options = peer.options("webauthn", action="register", email="ann@example.com").json()["options"]
    assert options["authenticatorSelection"] == {
        "residentKey": "preferred",
        "userVerification": "preferred",
        "requireResidentKey": False,
    }
    assert peer.options("webauthn").json()["options"]["userVerification"] == "preferred"


def test_relying_party_overrides():
    provider = Passkey(relying_party={"id": "example.com", "name": "Example", "origin": ORIGIN})
    peer = PasskeyPeer.build(provider)
    options = peer.options(action="register", email="ann@example.com").json()["options"]
    assert options["rp"] == {"name": "Example", "id": "example.com"}
    assert peer.options().json()["options"]["rpId"] == "example.com"
    assert peer.register(rp_id="example.com").location == ORIGIN


def test_authentication_options_never_tell_whether_an_address_has_an_account():
    """W3C WebAuthn §14.6.2-3 (username enumeration, credential ids): signed out, the answer
    for a known address is the answer for an unknown one, key for key; no credential ids."""
    peer = PasskeyPeer.build()
    peer.register("ann@example.com")
    peer.browser.sign_out()
    peer.db.calls.clear()
    answers = [
        peer.options(**query).json()
        for query in (
            {"email": "ann@example.com"},
            {"email": "nobody@example.com"},
            {"action": "authenticate", "email": "ann@example.com"},
            {"action": "authenticate", "email": "nobody@example.com"},
            {},
        )
    ]
    for answer in answers:
        assert answer["action"] == "authenticate"
        assert list(answer["options"]) == ["challenge", "timeout", "userVerification", "rpId"]
        assert answer["options"]["rpId"] == "localhost"
    assert [name for name, _ in peer.db.calls if "email" in name or "authenticator" in name] == []
    registering = [
        peer.options(action="register", email=address).json()
        for address in ("ann@example.com", "nobody@example.com")
    ]
    for answer, address in zip(registering, ("ann@example.com", "nobody@example.com"), strict=True):
        assert answer["action"] == "register"
        assert answer["options"]["user"]["name"] == answer["options"]["user"]["displayName"]
        assert answer["options"]["user"]["name"] == address
        assert answer["options"]["excludeCredentials"] == []
    # a known address registered anyway is refused after the ceremony (Auth.js's linking)
    peer.authenticator = SoftAuthenticator(entropy=seeded_entropy("another device"))
    refused = peer.register("ann@example.com")
    assert refused.location == f"{ORIGIN}/auth/signin?error=AccountNotLinked"


def test_a_signed_in_user_s_authentication_lists_their_own_credentials():
    peer = PasskeyPeer.build()
    peer.register("ann@example.com")
    (credential,) = peer.authenticator.credentials.values()
    known = peer.options(action="authenticate").json()
    assert list(known["options"]) == [
        "challenge",
        "allowCredentials",
        "timeout",
        "userVerification",
        "rpId",
    ]
    assert known["options"]["allowCredentials"] == [
        {"id": credential.id_b64url, "type": "public-key", "transports": ["internal", "hybrid"]}
    ]


# -- Auth.js's override options -----------------------------------------------------------------


def test_get_relaying_party_chooses_the_relying_party_of_each_request():
    """A relying party per request (a multi-tenant site), from the request the function gets;
    both ceremonies and both verifications use it."""
    seen = []

    def tenant(provider, request, origin):
        seen.append((provider.id, request.url, origin))
        host = request.header("x-tenant") or "default.example"
        return {"id": host, "name": f"Tenant {host}", "origin": ORIGIN}

    peer = PasskeyPeer.build(Passkey(get_relaying_party=tenant))
    options = peer.browser.get(
        "/auth/webauthn-options/passkey?action=register&email=ann@example.com",
        headers={"x-tenant": "shop.example", "cookie": peer.browser.cookie_header()},
    ).json()
    assert options["options"]["rp"] == {"name": "Tenant shop.example", "id": "shop.example"}
    assert seen[-1][0] == "passkey"
    assert seen[-1][2] == ORIGIN
    data = peer.authenticator.respond(options, origin=ORIGIN)
    body = {"action": "register", "data": json.dumps(data), "csrfToken": peer.browser.csrf_token()}
    wrong_tenant = peer.browser.post("/auth/callback/passkey", form=body)
    assert error_of(wrong_tenant) == "WebAuthnVerificationError"  # verified for default.example
    options = peer.browser.get(
        "/auth/webauthn-options/passkey?action=register&email=ann@example.com",
        headers={"x-tenant": "shop.example", "cookie": peer.browser.cookie_header()},
    ).json()
    data = peer.authenticator.respond(options, origin=ORIGIN)
    body = {"action": "register", "data": json.dumps(data), "csrfToken": peer.browser.csrf_token()}
    registered = peer.browser.post(
        "/auth/callback/passkey",
        form=body,
        headers={"x-tenant": "shop.example", "cookie": peer.browser.cookie_header()},
    )
    assert registered.location == ORIGIN


def test_get_relaying_party_must_answer_id_name_and_origin():
    peer = PasskeyPeer.build(Passkey(get_relaying_party=lambda: {"id": "x"}))
    response = peer.options(action="register", email="ann@example.com")
    assert response.status == 302
    assert error_of(response) == "Configuration"


def test_registration_and_authentication_options_override_per_ceremony():
    provider = WebAuthn(
        enable_conditional_ui=False,
        registration_options={
            "timeout": 60000,
            "attestation_type": "direct",
            "authenticator_selection": {
                "authenticator_attachment": "platform",
                "resident_key": "required",
            },
            "extensions": {"hmacCreateSecret": True},
            "supported_algorithm_ids": [-7],
        },
        authentication_options={
            "timeout": 30000,
            "user_verification": "discouraged",
            "extensions": {"largeBlob": {"read": True}},
        },
    )
    peer = PasskeyPeer.build(provider)
    registration = peer.options("webauthn", action="register", email="ann@example.com").json()
    options = registration["options"]
    assert options["timeout"] == 60000
    assert options["attestation"] == "direct"
    assert options["authenticatorSelection"] == {
        "authenticatorAttachment": "platform",
        "residentKey": "required",
        "userVerification": "preferred",
        "requireResidentKey": True,
    }
    assert options["extensions"] == {"hmacCreateSecret": True, "credProps": True}
    assert options["pubKeyCredParams"] == [{"alg": -7, "type": "public-key"}]
    authentication = peer.options("webauthn").json()["options"]
    assert list(authentication) == [
        "challenge",
        "timeout",
        "userVerification",
        "extensions",
        "rpId",
    ]
    assert authentication["timeout"] == 30000
    assert authentication["userVerification"] == "discouraged"
    assert authentication["extensions"] == {"largeBlob": {"read": True}}


@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        ({"require_resident_key": True}, ("required", True)),
        ({"require_resident_key": True, "resident_key": "preferred"}, ("preferred", False)),
        ({"require_resident_key": False}, ("preferred", False)),
        ({}, ("preferred", False)),
    ],
)
def test_require_resident_key_is_honoured_as_simplewebauthn_does(selection, expected):
    provider = WebAuthn(registration_options={"authenticator_selection": selection})
    peer = PasskeyPeer.build(provider)
    options = peer.options("webauthn", action="register", email="ann@example.com").json()
    chosen = options["options"]["authenticatorSelection"]
    assert (chosen["residentKey"], chosen["requireResidentKey"]) == expected


REQUIREMENTS = st.sampled_from(["required", "preferred", "discouraged"])


@given(
    default=REQUIREMENTS,
    named=st.none() | REQUIREMENTS,
    require=st.sampled_from([None, True, False]),
)
def test_the_resident_key_is_the_one_named_else_required_when_asked_else_the_default(
    default, named, require
):
    selection = {"resident_key": named, "require_resident_key": require}
    selection = {key: value for key, value in selection.items() if value is not None}
    chosen = resident_key(selection, default)
    if named is not None:
        assert chosen == named  # a named one wins, whatever require_resident_key says
    elif require:
        assert chosen == "required"
    else:
        assert chosen == default


def test_verify_options_override_the_user_verification_demanded():
    """``verify_*_options.require_user_verification`` per ceremony, over the flat option."""
    key = SoftAuthenticator(entropy=seeded_entropy("no-uv"), user_verified=False)
    lenient_registration = WebAuthn(
        enable_conditional_ui=False,
        verify_registration_options={"require_user_verification": False},
    )
    peer = PasskeyPeer.build(lenient_registration, authenticator=key)
    assert peer.register(provider_id="webauthn").location == ORIGIN
    peer.browser.sign_out()
    refused = peer.authenticate("webauthn")  # authentication still demands it
    assert error_of(refused) == "WebAuthnVerificationError"
    lenient = WebAuthn(
        enable_conditional_ui=False,
        require_user_verification=True,
        verify_registration_options={"require_user_verification": False},
        verify_authentication_options={"require_user_verification": False},
    )
    other = PasskeyPeer.build(lenient, authenticator=key, seed="lenient")
    assert other.register(provider_id="webauthn").location == ORIGIN
    other.browser.sign_out()
    assert other.authenticate("webauthn").location == ORIGIN


def test_supported_algorithm_ids_limit_what_registration_accepts():
    key = SoftAuthenticator(entropy=seeded_entropy("ed"), algorithm="EdDSA")
    provider = WebAuthn(
        enable_conditional_ui=False, verify_registration_options={"supported_algorithm_ids": [-7]}
    )
    peer = PasskeyPeer.build(provider, authenticator=key)
    assert error_of(peer.register(provider_id="webauthn")) == "WebAuthnVerificationError"


def test_the_challenge_cookie_is_auth_js_s():
    peer = PasskeyPeer.build()
    response = peer.options(action="register", email="ann@example.com")
    (cookie,) = [c for c in response.cookies if c.name == "authjs.challenge"]
    assert cookie.options.max_age == 900
    assert cookie.options.http_only
    assert cookie.options.same_site == "lax"
    now = peer.browser.clock.now
    sealed = jwt.decode(cookie.value, SECRET, "authjs.challenge", now=now)
    assert sealed["provider"] == "passkey"
    inner = jwt.decode(sealed["value"], SECRET, "encodedWebauthnChallenge", now=now)
    assert inner["exp"] - inner["iat"] == 900
    assert inner["challenge"] == response.json()["options"]["challenge"]
    assert inner["registerData"] == {"email": "ann@example.com"}


@pytest.mark.parametrize("action", ["login", "REGISTER", ""])
def test_an_invalid_action_is_a_400(action):
    peer = PasskeyPeer.build()
    response = peer.options(action=action)
    assert response.status == 400
    assert response.json() == {"error": "Invalid action"}
    assert "authjs.challenge" not in peer.browser.cookies()


def test_the_decision_without_and_with_an_action():
    peer = PasskeyPeer.build()
    assert peer.options().json()["action"] == "authenticate"
    assert peer.options(email="new@example.com").json()["action"] == "authenticate"
    assert peer.options(action="register").status == 400  # no user to register
    assert peer.options(action="register", email="new@example.com").json()["action"] == "register"
    peer.register("ann@example.com")
    assert peer.options().status == 400  # signed in: an action is required
    assert peer.options().json() == {"error": "Invalid request"}
    assert peer.options(action="register").json()["action"] == "register"
    assert peer.options(action="authenticate").json()["action"] == "authenticate"
    peer.browser.sign_out()
    assert peer.options(email="ann@example.com").json()["action"] == "authenticate"
    assert peer.options(action="register", email="ann@example.com").json()["action"] == "register"


def test_a_provider_that_is_not_webauthn_has_no_options():
    peer = PasskeyPeer.build()
    response = peer.options("credentials")
    assert response.status == 302
    assert error_of(response) == "Configuration"


# -- a second authenticator and linking ---------------------------------------------------------


def test_a_signed_in_user_adds_a_second_passkey():
    peer = PasskeyPeer.build()
    peer.register("ann@example.com")
    (user_id,) = peer.db.store.users
    first = next(iter(peer.authenticator.credentials.values()))
    options = peer.options(action="register").json()
    assert options["options"]["user"]["name"] == "ann@example.com"
    assert options["options"]["excludeCredentials"][0]["id"] == first.id_b64url
    other = SoftAuthenticator(entropy=seeded_entropy("second"), algorithm="EdDSA")
    response = peer.callback("register", other.respond(options, origin=ORIGIN))
    assert response.location == ORIGIN
    assert len(peer.db.store.users) == 1
    assert {a["user_id"] for a in peer.db.store.authenticators.values()} == {user_id}
    assert len(peer.db.store.authenticators) == len(peer.db.store.accounts) == 2
    for key in (peer.authenticator, other):
        peer.browser.sign_out()
        peer.authenticator = key
        assert peer.authenticate().location == ORIGIN
        assert peer.browser.session()["user"]["email"] == "ann@example.com"


def test_signed_in_as_someone_else_a_passkey_is_not_linked():
    peer = PasskeyPeer.build()
    peer.register("ann@example.com")
    ann_key = peer.authenticator
    peer.browser.sign_out()
    peer.authenticator = SoftAuthenticator(entropy=seeded_entropy("bob"))
    peer.register("bob@example.com")
    before = peer.snapshot()
    peer.authenticator = ann_key
    (ann_credential,) = ann_key.credentials
    # the options allow Bob's credentials only; a crafted response uses Ann's anyway
    response = peer.ceremony(query={"action": "authenticate"}, credential_id=ann_credential)
    assert response.location == f"{ORIGIN}/auth/signin?error=AccountNotLinked"
    assert peer.browser.session()["user"]["email"] == "bob@example.com"
    after = peer.snapshot()
    for table in ("users", "accounts", "sessions"):
        assert after[table] == before[table]


def test_an_address_taken_meanwhile_is_not_linked():
    peer = PasskeyPeer.build()
    options = peer.options(action="register", email="ann@example.com").json()
    peer.db.store.create_user(
        {
            "id": "u1",
            "email": "ann@example.com",
            "email_verified": None,
            "name": None,
            "image": None,
        }
    )
    before = peer.snapshot()
    response = peer.callback("register", peer.authenticator.respond(options, origin=ORIGIN))
    assert response.location == f"{ORIGIN}/auth/signin?error=AccountNotLinked"
    assert peer.snapshot() == before
    assert peer.browser.session() is None
