"""Passkeys across Auth.js (``@auth/core`` 0.41.3 with ``@simplewebauthn/server`` 9) and this
engine: the same options JSON, each side's challenge cookie accepted by the other, the
same authenticator records, and a passkey registered on one side signing in on the other."""

from __future__ import annotations

import base64
import json
import re
import time
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from sansio_auth.providers import Passkey
from sansio_auth.testing import Clock, seeded_entropy
from sansio_auth.testing.browser import StoredCookie
from sansio_auth.testing.webauthn import SoftAuthenticator
from tests.interop.webauthn_node import AuthJSPasskeys, authjs_passkeys, empty_db
from tests.sansio_auth.webauthn_peer import PasskeyPeer

__all__ = ["authjs_passkeys"]

pytestmark = pytest.mark.e2e

ORIGIN = "http://localhost:3000"
OPTIONS = f"{ORIGIN}/auth/webauthn-options/passkey"
CALLBACK = f"{ORIGIN}/auth/callback/passkey"
RANDOM = re.compile(r'"(challenge|id)": "[^"]*"')
FIELDS = {
    "credentialID": "credential_id",
    "userId": "user_id",
    "providerAccountId": "provider_account_id",
    "credentialPublicKey": "credential_public_key",
    "counter": "counter",
    "credentialDeviceType": "credential_device_type",
    "credentialBackedUp": "credential_backed_up",
    "transports": "transports",
}


def peer() -> PasskeyPeer:
    """JWT sessions, as on the Node side; the real time, as Node's cookies carry it."""
    return PasskeyPeer.build(Passkey(), session={"strategy": "jwt"}, clock=Clock(time.time()))


def masked(options: dict[str, Any]) -> str:
    """The options JSON with its random values (challenge, user handle, ids) blanked."""
    return RANDOM.sub(r'"\1": "*"', json.dumps(options))


def challenge_cookie(cookies: list[str]) -> str:
    return next(c for c in cookies if c.startswith("authjs.challenge="))


def to_ours(db: dict[str, list[dict[str, Any]]], python: PasskeyPeer) -> None:
    """Auth.js's tables (camelCase) into the engine's memory adapter."""
    store = python.db.store
    for user in db["users"]:
        store.create_user({"id": user["id"], "email": user["email"], "email_verified": None,
                           "name": user.get("name"), "image": user.get("image")})  # fmt: skip
    for account in db["accounts"]:
        store.link_account({"user_id": account["userId"], "type": account["type"],
                            "provider": account["provider"],
                            "provider_account_id": account["providerAccountId"]})  # fmt: skip
    for authenticator in db["authenticators"]:
        store.create_authenticator({FIELDS[k]: v for k, v in authenticator.items()})


def to_theirs(python: PasskeyPeer) -> dict[str, list[dict[str, Any]]]:
    store, db = python.db.store, empty_db()
    db["users"] = [{"id": u["id"], "email": u["email"], "emailVerified": None,
                    "name": u["name"]} for u in store.users.values()]  # fmt: skip
    db["accounts"] = [{"userId": a["user_id"], "type": a["type"], "provider": a["provider"],
                       "providerAccountId": a["provider_account_id"]}
                      for a in store.accounts.values()]  # fmt: skip
    back = {ours: theirs for theirs, ours in FIELDS.items()}
    db["authenticators"] = [
        {back[k]: v for k, v in a.items()} for a in store.authenticators.values()
    ]
    return db


@pytest.mark.parametrize("query", ["?action=register&email=ann@example.com", ""])
def test_the_options_are_auth_js_s(authjs_passkeys: AuthJSPasskeys, query: str) -> None:
    """(Without an action Auth.js registers an unknown address; here a signed-out browser
    always authenticates, so that the answer tells nothing of the address: docs/security.md.)"""
    theirs = authjs_passkeys(OPTIONS + query)
    ours = peer().browser.get(f"/auth/webauthn-options/passkey{query}")
    assert ours.status == theirs["status"] == 200
    assert ours.json()["action"] == theirs["body"]["action"]
    assert masked(ours.json()["options"]) == masked(theirs["body"]["options"])


def test_a_registration_verifies_alike_on_both_sides(authjs_passkeys: AuthJSPasskeys) -> None:
    """Our options and challenge cookie; one response posted to both: the same records."""
    python = peer()
    options = python.options(action="register", email="ann@example.com").json()
    cookie = f"authjs.challenge={python.browser.cookies()['authjs.challenge']}"
    data = json.dumps(python.authenticator.respond(options, origin=ORIGIN))
    theirs = authjs_passkeys(
        CALLBACK, method="POST", body={"action": "register", "data": data}, cookie=cookie
    )
    assert theirs["status"] == 302
    assert theirs["location"] == ORIGIN
    assert python.callback("register", json.loads(data)).location == ORIGIN
    (stored,) = python.db.store.authenticators.values()
    (their_record,) = theirs["db"]["authenticators"]
    mapped = {FIELDS[k]: v for k, v in their_record.items()}
    assert {**mapped, "user_id": stored["user_id"]} == stored
    (account,) = theirs["db"]["accounts"]
    assert (account["type"], account["providerAccountId"]) == ("webauthn", stored["credential_id"])


def test_auth_js_s_challenge_cookie_registers_here(authjs_passkeys: AuthJSPasskeys) -> None:
    reply = authjs_passkeys(OPTIONS + "?email=ann@example.com")
    python = peer()
    name, _, value = challenge_cookie(reply["cookies"]).partition("=")
    python.browser.jar[name] = StoredCookie(value, None)
    data = python.authenticator.respond(reply["body"], origin=ORIGIN)
    assert python.callback("register", data).location == ORIGIN
    assert python.browser.session()["user"]["email"] == "ann@example.com"


def test_a_passkey_registered_by_auth_js_signs_in_here(authjs_passkeys: AuthJSPasskeys) -> None:
    key = SoftAuthenticator(entropy=seeded_entropy("node"))
    reply = authjs_passkeys(OPTIONS + "?email=ann@example.com")
    data = json.dumps(key.respond(reply["body"], origin=ORIGIN))
    registered = authjs_passkeys(
        CALLBACK,
        method="POST",
        body={"action": "register", "data": data},
        cookie=challenge_cookie(reply["cookies"]),
    )
    assert registered["location"] == ORIGIN
    python = peer()
    to_ours(registered["db"], python)
    python.authenticator = key
    assert python.authenticate().location == ORIGIN
    assert python.browser.session()["user"]["email"] == "ann@example.com"


def checkable_by_simplewebauthn_9(response: dict[str, Any]) -> bool:
    """Whether @simplewebauthn/server 9 (Auth.js's) reads this ES256 signature right: it
    mis-converts an ``r`` or ``s`` shorter than 32 bytes (fixed upstream in SimpleWebAuthn
    pull request 594), about one signature in 128, and refuses a valid passkey."""
    der = base64.urlsafe_b64decode(response["response"]["signature"] + "==")
    r, s = decode_dss_signature(der)
    return r.bit_length() > 248 and s.bit_length() > 248


def test_a_passkey_registered_here_signs_in_with_auth_js(authjs_passkeys: AuthJSPasskeys) -> None:
    python = peer()
    python.register("ann@example.com")
    db = to_theirs(python)
    while True:  # a new challenge for a signature Auth.js's library can check
        reply = authjs_passkeys(OPTIONS, db=db)
        assert reply["body"]["action"] == "authenticate"
        response = python.authenticator.respond(reply["body"], origin=ORIGIN)
        if checkable_by_simplewebauthn_9(response):
            break
        for credential in python.authenticator.credentials.values():
            credential.counter -= python.authenticator.counter_step  # that one was never sent
    data = json.dumps(response)
    signed_in = authjs_passkeys(
        CALLBACK,
        method="POST",
        body={"action": "authenticate", "data": data},
        cookie=challenge_cookie(reply["cookies"]),
        db=db,
    )
    assert signed_in["status"] == 302
    assert signed_in["location"] == ORIGIN
    assert any(c.startswith("authjs.session-token=") for c in signed_in["cookies"])
    (authenticator,) = signed_in["db"]["authenticators"]
    assert authenticator["counter"] == 1
