"""A catalogue provider signing in against its service, replayed from recorded responses.

>>> h = Harness.build(Discord, env={"AUTH_DISCORD_ID": "id", "AUTH_DISCORD_SECRET": "s"})
>>> h.route("POST", TOKEN, fixture("discord/token.json"))
>>> h.route("GET", USER, fixture("discord/user.json"))
>>> response = h.sign_in()                  # POST signin, the provider's answer, the callback

OIDC services publish their recorded discovery document; their ID tokens are signed
here at request time (:meth:`Harness.id_token_answer`) with a test key published as
the JWKS (:func:`jwks`), carrying the nonce of the authorization request.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from joserfc import jws
from joserfc.jwk import ECKey, OctKey, RSAKey

from sansio_auth import AuthConfig, Response
from sansio_auth.events import HTTPResponse, OutboundRequest
from sansio_auth.testing.op import merge_claims
from tests.sansio_auth.driver import ORIGIN, SECRET, AuthPair, query_of, written
from tests.sansio_auth.oauth.fake_op import rsa_key, start
from tests.sansio_auth.providers.recorded import (
    Answer,
    Recorded,
    callback,
    fixture_json,
    json_response,
)

KID = "recorded-signing-key"


def settled(provider: Any, env: Mapping[str, str] | None = None) -> Any:
    """``provider`` as the engine runs it once configured: ``AUTH_<ID>_*`` applied, checked."""
    pair = AuthPair.build(providers=[provider], env=dict(env or {}))
    [configured] = pair.engine.settings.providers
    return configured


EC_CURVES = {"ES256": "P-256", "ES384": "P-384", "ES512": "P-521"}


def jwks(kid: str = KID, alg: str = "RS256") -> HTTPResponse:
    """A JWKS answer publishing the test key that signs ``alg`` (RSA ``kid`` for RS*/PS*)."""
    return json_response({"keys": [signing_key(alg, kid).as_dict(private=False)]})


def signing_key(alg: str, kid: str = KID) -> RSAKey | ECKey:
    """The test key for ``alg``: RSA ``kid``, or an EC key of the algorithm's curve."""
    curve = EC_CURVES.get(alg)
    return rsa_key(kid) if curve is None else ec_curve_key(curve)


@cache
def ec_curve_key(curve: str) -> ECKey:
    return ECKey.generate_key(curve, parameters={"kid": f"recorded-{curve}", "use": "sig"})


def sign(claims: Mapping[str, Any], kid: str = KID, *, alg: str = "RS256", secret: str = "") -> str:
    """``claims`` as a JWS signed with ``alg``: the test key of :func:`signing_key`, or for
    HS256/384/512 ``secret`` (a client secret; no ``kid``)."""
    payload = json.dumps(dict(claims))
    if alg.startswith("HS"):
        key: OctKey | RSAKey | ECKey = OctKey.import_key(secret)
        header = {"alg": alg, "typ": "JWT"}
    else:
        key = signing_key(alg, kid)
        header = {"alg": alg, "kid": key.kid, "typ": "JWT"}
    return jws.serialize_compact(header, payload, key, algorithms=[alg])


@dataclass
class Harness:
    """An engine with one catalogue provider, a recorded service, and the last sign-in's URL."""

    pair: AuthPair
    provider_id: str
    service: Recorded = field(default_factory=lambda: Recorded({}))
    authorization_url: str = ""

    @classmethod
    def build(
        cls, provider: Any, *, env: Mapping[str, str] | None = None, **config: Any
    ) -> Harness:
        """An engine for ``provider`` (a factory or a record), a ``sign_in`` event recorder."""
        options = {
            "secret": SECRET,
            "trust_host": True,
            "providers": [provider],
            "events": {"sign_in": lambda **message: None},
            **config,
        }
        pair = AuthPair.build(AuthConfig(**options), env=env or {})
        [record] = pair.engine.settings.providers
        harness = cls(pair, record.id)
        pair.performer.http = harness.service.handle
        return harness

    def route(self, method: str, url: str, answer: Answer) -> None:
        """Answer ``method url`` (query ignored) with ``answer``."""
        self.service.routes[(method, url)] = answer

    @property
    def authorization(self) -> dict[str, str]:
        """The parameters of the last authorization request."""
        return query_of(self.authorization_url)

    def start(self, query: str = "") -> Response:
        """``POST signin/<id>``: the answer redirects to the provider."""
        response = start(self.pair.browser, self.provider_id, query)
        assert response.status == 302, response
        assert response.location is not None
        self.authorization_url = response.location
        return response

    def come_back(self, *, method: str = "GET", **params: str | None) -> Response:
        """The provider sends the browser back: ``code`` and the ``state`` sent, unless given."""
        reply: dict[str, str | None] = {"code": "recorded-code"}
        if "state" in self.authorization:
            reply["state"] = self.authorization["state"]
        reply.update(params)
        values = {k: v for k, v in reply.items() if v is not None}
        browser = self.pair.browser
        if method == "POST":
            return browser.post(f"{browser.base}/callback/{self.provider_id}", form=values)
        return callback(browser, self.provider_id, values)

    def sign_in(self, **params: str | None) -> Response:
        """The whole round trip; the callback's answer."""
        self.start()
        return self.come_back(**params)

    def assert_signed_in(self, response: Response) -> Mapping[str, Any]:
        """A session cookie, a redirect home, one ``sign_in`` event (returned)."""
        assert response.status == 302, response
        assert response.location == ORIGIN, response.location
        assert "authjs.session-token" in written(response)
        [event] = self.pair.performer.emitted("sign_in")
        return event

    def session_user(self) -> Any:
        return self.pair.browser.session()["user"]

    def sent(self, method: str, url: str) -> OutboundRequest:
        """The one request sent to ``method url``."""
        [request] = self.service.sent(method, url)
        return request

    def id_token_answer(
        self,
        token: str,
        claims: str,
        *,
        status: int = 200,
        alg: str = "RS256",
        secret: str = "",
        **changes: Any,
    ) -> Callable[[OutboundRequest], HTTPResponse]:
        """A token endpoint answering fixture ``token`` plus an ID token of fixture ``claims``.

        The ID token is issued now (``iat``/``exp`` by the engine's clock), carries the
        authorization request's ``nonce`` if it had one, is signed as :func:`sign` signs
        ``alg`` (HMAC with ``secret``); ``changes`` override claims (``None`` removes one).
        """

        def answer(request: OutboundRequest) -> HTTPResponse:
            now = int(self.pair.clock.now)
            body = {**fixture_json(claims), "iat": now, "exp": now + 3600}
            if "nonce" in self.authorization:
                body["nonce"] = self.authorization["nonce"]
            id_token = sign(merge_claims(body, changes), alg=alg, secret=secret)
            return json_response({**fixture_json(token), "id_token": id_token}, status)

        return answer


def recorded_oidc(provider: Any, name: str, *, env: Mapping[str, str], **claims: Any) -> Harness:
    """``provider`` against the recorded OpenID Provider ``fixtures/<name>/``.

    Its ``openid-configuration.json`` is served at its issuer's discovery URL, a test
    JWKS at its ``jwks_uri``, and its token endpoint answers ``token.json`` with an ID
    token of ``id_token_claims.json`` (``claims`` override).
    """
    document = fixture_json(f"{name}/openid-configuration.json")
    harness = Harness.build(provider, env=env)
    discovery = document["issuer"].rstrip("/") + "/.well-known/openid-configuration"
    harness.route("GET", discovery, json_response(document))
    harness.route("GET", document["jwks_uri"], jwks())
    answer = harness.id_token_answer(f"{name}/token.json", f"{name}/id_token_claims.json", **claims)
    harness.route("POST", document["token_endpoint"], answer)
    return harness
