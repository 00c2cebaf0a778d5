"""Every WebAuthn response the engine must refuse, and the configurations it must refuse.

A refused response ends on the error page (``WebAuthnVerificationError``, or
``Configuration`` for what Auth.js treats so), signs nobody in and writes nothing.
"""

from __future__ import annotations

import json

import cbor2
import pytest

from sansio_auth import AuthConfig, Engine
from sansio_auth.errors import (
    Configuration as ConfigurationError,
)
from sansio_auth.errors import (
    DuplicateConditionalUI,
    ExperimentalFeatureNotEnabled,
    MissingAdapter,
    MissingAdapterMethods,
    MissingWebAuthnAutocomplete,
)
from sansio_auth.oauth.checks import b64url, unb64url
from sansio_auth.providers import Credentials, Passkey, WebAuthn
from sansio_auth.testing import SECRET, Clock, seeded_entropy
from sansio_auth.testing.browser import StoredCookie
from sansio_auth.testing.webauthn import SoftAuthenticator
from tests.sansio_auth.adapter_faults import FaultyAdapter
from tests.sansio_auth.webauthn_peer import ENABLED, PasskeyPeer, error_of

ORIGIN = "http://localhost:3000"
VERIFICATION = f"{ORIGIN}/auth/error?error=WebAuthnVerificationError"


@pytest.fixture
def registered() -> PasskeyPeer:
    """Ann has a passkey (used once: counter 1) and is signed out."""
    peer = PasskeyPeer.build()
    peer.register("ann@example.com")
    peer.browser.sign_out()
    assert peer.authenticate().location == ORIGIN
    peer.browser.sign_out()
    peer.db.calls.clear()
    return peer


def assert_refused(
    peer: PasskeyPeer, response, before, *, error: str = "WebAuthnVerificationError"
):
    assert response.status == 302
    assert error_of(response) == error
    assert peer.browser.session() is None
    assert peer.snapshot() == before
    assert peer.writes() == []
    assert "authjs.challenge" not in peer.browser.cookies()


def ceremony_query(peer: PasskeyPeer, action: str) -> dict[str, str]:
    """Prepare ``peer`` for ``action``: a registration needs an authenticator without the
    passkey and a new address (the query of its options request); sign-in needs neither."""
    if action != "register":
        return {}
    peer.authenticator = SoftAuthenticator(entropy=seeded_entropy("other"))
    return {"action": "register", "email": "new@example.com"}


@pytest.mark.parametrize("action", ["register", "authenticate"])
@pytest.mark.parametrize(
    "tamper",
    [
        pytest.param({"origin": "http://evil.example"}, id="wrong-origin"),
        pytest.param({"rp_id": "evil.example"}, id="wrong-rp-id"),
        pytest.param({"user_present": False}, id="no-user-presence"),
        pytest.param({"user_verified": False}, id="no-user-verification-for-passkey"),
    ],
)
def test_a_tampered_ceremony_is_refused(registered, action, tamper):
    peer = registered
    query = ceremony_query(peer, action)
    before = peer.snapshot()
    if "rp_id" in tamper and action == "authenticate":
        (credential,) = peer.authenticator.credentials.values()
        credential.rp_id = tamper["rp_id"]
    response = peer.ceremony(query=query, **tamper)
    assert_refused(peer, response, before)


@pytest.mark.parametrize("action", ["register", "authenticate"])
def test_a_response_to_another_challenge_is_refused(registered, action):
    peer = registered
    query = ceremony_query(peer, action)
    stale = peer.options(**query).json()
    peer.options(**query)  # a newer challenge replaces the cookie
    before = peer.snapshot()
    response = peer.callback(action, peer.authenticator.respond(stale, origin=ORIGIN))
    assert_refused(peer, response, before)


@pytest.mark.parametrize(
    "statement",
    [{"alg": -7, "sig": b"forged"}, {"x5u": "https://evil.example/chain"}, {"": 0}],
    ids=["known-members", "unknown-member", "empty-name"],
)
def test_a_none_attestation_with_a_statement_is_refused(registered, statement):
    """W3C WebAuthn §8.7: the ``none`` format's statement is empty; a filled one is refused,
    not stored (py_webauthn only looks at the members it knows)."""
    peer = registered
    options = peer.options(**ceremony_query(peer, "register")).json()
    data = peer.authenticator.respond(options, origin=ORIGIN)
    attestation = cbor2.loads(unb64url(data["response"]["attestationObject"]))
    assert attestation["fmt"] == "none"
    attestation["attStmt"] = statement
    data["response"]["attestationObject"] = b64url(cbor2.dumps(attestation))
    before = peer.snapshot()
    response = peer.callback("register", data)
    assert_refused(peer, response, before)


def test_a_forged_challenge_is_refused(registered):
    peer = registered
    options = peer.options().json()
    options["options"]["challenge"] = "A" * 43
    before = peer.snapshot()
    response = peer.callback("authenticate", peer.authenticator.respond(options, origin=ORIGIN))
    assert_refused(peer, response, before)


@pytest.mark.parametrize("action", ["register", "authenticate"])
def test_a_replayed_response_is_refused(registered, action):
    peer = registered
    query = ceremony_query(peer, action)
    options = peer.options(**query).json()
    cookie = peer.browser.cookies()["authjs.challenge"]
    data = peer.authenticator.respond(options, origin=ORIGIN)
    assert peer.callback(action, data).location == ORIGIN
    peer.browser.sign_out()
    before = peer.snapshot()
    peer.db.calls.clear()
    # the browser's cookie is used up: the same post again fails its check
    replay = peer.callback(action, data)
    assert_refused(peer, replay, before, error="Configuration")
    # an attacker who kept the cookie too: the credential exists / the counter did not move
    peer.browser.jar["authjs.challenge"] = StoredCookie(cookie, None)
    replay = peer.callback(action, data)
    assert_refused(peer, replay, before)


def test_a_counter_going_backwards_is_refused_and_logged_as_a_clone(registered):
    peer = registered
    (credential,) = peer.authenticator.credentials.values()
    credential.counter = 0  # a copy of the key made before its last use: it signs counter 1 again
    before = peer.snapshot()
    response = peer.authenticate()
    assert_refused(peer, response, before)
    assert "webauthn-cloned-authenticator" in peer.browser.performer.log_codes("warn")
    (stored,) = peer.db.store.authenticators.values()
    assert stored["counter"] == 1


def test_an_unknown_credential_is_refused(registered):
    peer = registered
    stranger = SoftAuthenticator(entropy=seeded_entropy("stranger"))
    elsewhere = PasskeyPeer.build(authenticator=stranger, seed="elsewhere")
    elsewhere.register("eve@example.com")  # a credential of another site's database
    peer.authenticator = stranger
    before = peer.snapshot()
    assert_refused(peer, peer.authenticate(), before)


def test_a_signature_by_another_key_is_refused(registered):
    peer = registered
    (credential,) = peer.authenticator.credentials.values()
    credential.key = SoftAuthenticator(entropy=seeded_entropy("x"))._new_key()
    before = peer.snapshot()
    assert_refused(peer, peer.authenticate(), before)


def test_webauthn_may_leave_user_verification_optional():
    provider = WebAuthn(require_user_verification=False, enable_conditional_ui=False)
    key = SoftAuthenticator(entropy=seeded_entropy("uv"), user_verified=False)
    peer = PasskeyPeer.build(provider, authenticator=key)
    assert peer.register(provider_id="webauthn").location == ORIGIN
    peer.browser.sign_out()
    assert peer.authenticate("webauthn").location == ORIGIN
    strict = PasskeyPeer.build(WebAuthn(), authenticator=key, seed="strict")
    assert error_of(strict.register(provider_id="webauthn")) == "WebAuthnVerificationError"


@pytest.mark.parametrize(
    ("form", "error"),
    [
        ({"action": "login"}, "Configuration"),
        ({"data": "{not json"}, "Configuration"),
        ({"data": json.dumps({"id": "x"})}, "Configuration"),
        ({"csrfToken": "forged"}, "MissingCSRF"),
    ],
)
def test_bad_posts_are_refused(registered, form, error):
    peer = registered
    options = peer.options().json()
    data = peer.authenticator.respond(options, origin=ORIGIN)
    body = {
        "action": "authenticate",
        "data": json.dumps(data),
        "csrfToken": peer.browser.csrf_token(),
        **form,
    }
    before = peer.snapshot()
    response = peer.browser.post("/auth/callback/passkey", form=body)
    assert response.status == 302
    assert error_of(response) == error
    assert peer.snapshot() == before
    assert peer.writes() == []


def test_a_challenge_made_for_another_provider_is_refused():
    peer = PasskeyPeer.build(Passkey(), WebAuthn(enable_conditional_ui=False))
    options = peer.options("webauthn", action="register", email="ann@example.com").json()
    data = peer.authenticator.respond(options, origin=ORIGIN)
    before = peer.snapshot()
    response = peer.callback("register", data, provider_id="passkey")
    assert_refused(peer, response, before, error="Configuration")


def test_the_sign_in_callback_can_refuse_a_registration():
    peer = PasskeyPeer.build(callbacks={"sign_in": lambda: False})
    before = peer.snapshot()
    response = peer.register()
    assert response.location == f"{ORIGIN}/auth/error?error=AccessDenied"
    assert peer.snapshot() == before


def test_a_failure_storing_the_authenticator_leaves_nothing():
    peer = PasskeyPeer.build()
    peer.db.fail_on("create_authenticator")
    before = peer.snapshot()
    response = peer.register()
    assert error_of(response) == "Configuration"
    assert peer.snapshot() == before
    assert peer.browser.session() is None


def test_a_failure_storing_a_second_authenticator_unlinks_its_account():
    peer = PasskeyPeer.build()
    peer.register()
    before = peer.snapshot()
    peer.db.fail_on("create_authenticator")
    peer.authenticator = SoftAuthenticator(entropy=seeded_entropy("second"))
    response = peer.ceremony(query={"action": "register"})
    assert error_of(response) == "Configuration"
    after = peer.snapshot()
    assert after["accounts"] == before["accounts"]
    assert after["authenticators"] == before["authenticators"]


# -- configuration ------------------------------------------------------------------------------


def engine(*providers, **options):
    options.setdefault("adapter", FaultyAdapter())
    config = AuthConfig(secret=SECRET, trust_host=True, providers=list(providers), **options)
    return Engine(config, clock=Clock(), entropy=seeded_entropy(0))


def test_webauthn_must_be_enabled():
    with pytest.raises(ExperimentalFeatureNotEnabled, match="enable_webauthn"):
        engine(Passkey())
    with pytest.raises(ExperimentalFeatureNotEnabled):
        engine(Passkey(), experimental={"enable_webauthn": False})
    assert engine(Passkey(), experimental=ENABLED).settings.warnings == ("experimental-webauthn",)
    alias = engine(Passkey(), experimental={"enable_web_authn": True})
    assert alias.settings.warnings == ("experimental-webauthn",)
    plain = engine(Credentials(authorize=dict), adapter=None)
    assert "experimental-webauthn" not in plain.settings.warnings


def test_webauthn_needs_an_adapter_with_authenticators():
    with pytest.raises(MissingAdapter, match="WebAuthn requires an adapter"):
        engine(Passkey(), experimental=ENABLED, adapter=None)
    hiding = FaultyAdapter(hide={"get_authenticator", "update_authenticator_counter"})
    with pytest.raises(
        MissingAdapterMethods, match="get_authenticator, update_authenticator_counter"
    ):
        engine(Passkey(), experimental=ENABLED, adapter=hiding)


def test_only_one_provider_may_have_conditional_ui():
    with pytest.raises(DuplicateConditionalUI):
        engine(Passkey(), WebAuthn(), experimental=ENABLED)
    engine(Passkey(), WebAuthn(enable_conditional_ui=False), experimental=ENABLED)


def test_conditional_ui_needs_a_webauthn_autocomplete_field():
    fields = {"email": {"label": "Email", "autocomplete": "username"}}
    with pytest.raises(MissingWebAuthnAutocomplete, match="passkey"):
        engine(Passkey(form_fields=fields), experimental=ENABLED)
    engine(Passkey(form_fields=fields, enable_conditional_ui=False), experimental=ENABLED)


@pytest.mark.parametrize(
    "options",
    [
        {"relying_party": {"host": "x"}},
        {"relying_party": {"id": ""}},
        {"timeout": 0},
        {"user_verification": "always"},
        {"algorithms": ()},
        {"registration_options": {"rpID": "x"}},
        {"registration_options": {"timeout": -1}},
        {"registration_options": {"attestation_type": "indirect"}},
        {"registration_options": {"authenticator_selection": {"residentKey": "required"}}},
        {"registration_options": {"authenticator_selection": {"resident_key": "always"}}},
        {"authentication_options": {"allow_credentials": []}},
        {"authentication_options": {"user_verification": "maybe"}},
        {"verify_registration_options": {"require_user_verification": "no"}},
        {"verify_registration_options": {"supported_algorithm_ids": ["ES256"]}},
        {"verify_authentication_options": {"expected_origin": "https://x"}},
        {"get_relaying_party": "example.com"},
    ],
)
def test_bad_provider_options_are_named(options):
    with pytest.raises(ConfigurationError, match="passkey"):
        engine(Passkey(**options), experimental=ENABLED)


def test_the_passkey_defaults_are_auth_js_s():
    passkey, webauthn = Passkey(), WebAuthn()
    assert (passkey.id, passkey.name, passkey.type) == ("passkey", "Passkey", "webauthn")
    assert (webauthn.id, webauthn.name) == ("webauthn", "WebAuthn")
    for provider in (passkey, webauthn):
        assert provider.timeout == 300000
        assert provider.enable_conditional_ui
        assert provider.form_fields == {
            "email": {"label": "Email", "required": True, "autocomplete": "username webauthn"}
        }
    assert (passkey.user_verification, passkey.resident_key) == ("required", "required")
    assert passkey.require_user_verification
    assert Passkey(id="key", name="Key").id == "key"
