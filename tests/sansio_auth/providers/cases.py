"""A built-in provider signing in end to end against its service, simulated from a script.

``fixtures/<id>/sign_in.json`` is the script, written from the service's published API
documentation (the samples in the same folder are its documented responses)::

    {
      "about": "where in the service's documentation these requests are described",
      "env": {"AUTH_DISCORD_ID": "...", "AUTH_DISCORD_SECRET": "..."},
      "options": {},                          # factory keywords, optional
      "authorization": {"url": "https://discord.com/api/oauth2/authorize",
                        "params": {"client_id": "...", "scope": "identify email",
                                   "code_challenge": "<code_challenge>", ...}},
      "callback": {"method": "GET", "params": {"code": "..."}},   # state added if sent
      "requests": [
        {"method": "POST", "url": "https://discord.com/api/oauth2/token",
         "headers": {"accept": "application/json", "authorization": "Basic ...", ...},
         "form": {"grant_type": "authorization_code", "code_verifier": "<code_verifier>", ...},
         "response": {"json": "token.json"}},
        {"method": "GET", "url": "https://discord.com/api/users/@me", "headers": {...},
         "response": {"json": "user.json"}}
      ],
      "user": {"name": "Nelly", "email": "...", "image": "..."},
      "account": {"provider_account_id": "80351110224678912"}
    }

Every outbound request must be the next one of ``requests``, exactly: method, URL (query
compared as a mapping), every header, and the body (``form``, ``json`` or ``text``; none
when the script gives none). The authorization URL's parameters must be exactly
``params``. ``<state>``, ``<nonce>``, ``<code_challenge>`` and ``<code_verifier>`` match
the values the engine chose (each the same wherever it appears; the verifier must hash to
the challenge). A ``response`` is ``{"status", "headers"}`` and one of ``json`` (a file of
the folder or a value; with ``"id_token": "<claims file>"`` the engine's nonce and the
clock's ``iat``/``exp`` are added and the claims signed into an ``id_token`` field),
``jwks: true`` (the key those ID tokens are signed with), ``jwt`` (a claims file, signed,
answered as ``application/jwt``: a signed userinfo response), ``text`` or ``file`` (bytes).
``"alg"`` signs the ``id_token``/``jwt`` with ``ES256``/``384``/``512`` (the JWKS of a response
with the same ``"alg"`` publishes that key) or ``HS256``/``384``/``512`` keyed by the client
secret; default ``RS256``.
The sign-in must succeed with exactly ``user`` in the session and ``account`` (a subset)
in the ``sign_in`` event. The callback is a ``POST`` (form) for ``"method": "POST"``
(``form_post``); ``state`` is added to its ``params`` when the authorization request had one.
Every built-in provider must have a script (``test_sign_in.py``).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from sansio_auth.events import HTTPResponse, OutboundRequest
from sansio_auth.providers import BUILTIN_PROVIDERS
from tests.sansio_auth.driver import query_of
from tests.sansio_auth.providers.recorded import FIXTURES
from tests.sansio_auth.providers.service import Harness, jwks, sign

CASE = "sign_in.json"
PLACEHOLDERS = ("<state>", "<nonce>", "<code_challenge>", "<code_verifier>")


def case_ids() -> list[str]:
    """The providers that have a script."""
    return sorted(path.parent.name for path in FIXTURES.glob(f"*/{CASE}"))


@dataclass
class Script:
    """The simulated service: answers the scripted requests in order, noting each difference."""

    folder: Path
    steps: list[dict[str, Any]]
    harness: Harness | None = None
    chosen: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    position: int = 0

    def handle(self, request: OutboundRequest) -> HTTPResponse:
        if self.position >= len(self.steps):
            self.problems.append(f"unscripted request {request.method} {request.url}")
            return HTTPResponse(status=599, body=b"")
        step = self.steps[self.position]
        self.position += 1
        self.compare_request(step, request)
        return self.answer(step.get("response", {}))

    # -- what the engine sent ------------------------------------------------------------------

    def match(self, where: str, expected: Any, actual: Any) -> None:
        """``actual`` is ``expected``; a placeholder matches (and fixes) the engine's value."""
        if isinstance(expected, str) and expected in PLACEHOLDERS:
            if not isinstance(actual, str) or not actual:
                self.problems.append(f"{where}: expected {expected}, got {actual!r}")
            elif self.chosen.setdefault(expected, actual) != actual:
                self.problems.append(
                    f"{where}: {expected} is {actual!r}, was {self.chosen[expected]!r}"
                )
            return
        if isinstance(expected, Mapping) and isinstance(actual, Mapping):
            for key in sorted(set(expected) | set(actual)):
                if key not in actual:
                    self.problems.append(f"{where}: {key!r} missing (expected {expected[key]!r})")
                elif key not in expected:
                    self.problems.append(f"{where}: unexpected {key!r}: {actual[key]!r}")
                else:
                    self.match(f"{where}.{key}", expected[key], actual[key])
            return
        if expected != actual:
            self.problems.append(f"{where}: expected {expected!r}, got {actual!r}")

    def match_url(self, where: str, expected: str, actual: str, params: Any = None) -> None:
        self.match(f"{where} URL", _without_query(expected), _without_query(actual))
        wanted = {**query_of(expected), **(params or {})}
        self.match(f"{where} query", wanted, query_of(actual))

    def compare_request(self, step: Mapping[str, Any], request: OutboundRequest) -> None:
        where = f"request {self.position} ({step['method']} {step['url']})"
        self.match(f"{where} method", step["method"], request.method)
        self.match_url(where, step["url"], request.url)
        headers = {name.lower(): value for name, value in request.headers}
        self.match(f"{where} headers", step.get("headers", {}), headers)
        if "form" in step:
            pairs = parse_qsl(request.body.decode(), keep_blank_values=True)
            if len(pairs) != len(dict(pairs)):
                self.problems.append(f"{where}: a form field is repeated: {pairs}")
            self.match(f"{where} form", step["form"], dict(pairs))
        elif "json" in step:
            self.match(f"{where} json", step["json"], json.loads(request.body))
        else:
            self.match(f"{where} body", step.get("text", ""), request.body.decode())

    # -- what the service answers --------------------------------------------------------------

    def answer(self, spec: Mapping[str, Any]) -> HTTPResponse:
        headers = {"content-type": "application/json", **spec.get("headers", {})}
        alg = spec.get("alg", "RS256")
        if spec.get("jwks"):
            body = jwks(alg=alg).body
        elif "jwt" in spec:
            headers["content-type"] = "application/jwt"
            body = self.signed(self.load(spec["jwt"]), alg).encode()
        elif "json" in spec:
            value = self.load(spec["json"])
            if "id_token" in spec:
                value = {**value, "id_token": self.id_token(self.load(spec["id_token"]), alg)}
            body = json.dumps(value).encode()
        elif "text" in spec:
            body = spec["text"].encode()
        elif "file" in spec:
            body = (self.folder / spec["file"]).read_bytes()
        else:
            body = b""
        return HTTPResponse(status=spec.get("status", 200), headers=headers, body=body)

    def load(self, value: Any) -> Any:
        if isinstance(value, str) and value.endswith(".json"):
            return json.loads((self.folder / value).read_text())
        return value

    def id_token(self, claims: Mapping[str, Any], alg: str) -> str:
        assert self.harness is not None
        now = int(self.harness.pair.clock.now)
        issued = {**claims, "iat": now, "exp": now + 3600}
        if "nonce" in self.harness.authorization:
            issued["nonce"] = self.harness.authorization["nonce"]
        return self.signed(issued, alg)

    def signed(self, claims: Mapping[str, Any], alg: str) -> str:
        """``claims`` signed with ``alg``: the test key, or (HMAC) the provider's client secret."""
        assert self.harness is not None
        provider = self.harness.pair.engine.settings.providers_by_id[self.harness.provider_id]
        return sign(claims, alg=alg, secret=getattr(provider, "client_secret", "") or "")


def _without_query(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def _challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def run(provider_id: str) -> None:
    """Sign in with ``provider_id`` as its script says; fail naming every difference."""
    folder = FIXTURES / provider_id
    case = json.loads((folder / CASE).read_text())
    script = Script(folder, case["requests"])
    provider = BUILTIN_PROVIDERS[provider_id](**case.get("options", {}))
    h = Harness.build(provider, env=case["env"])
    script.harness = h
    h.pair.performer.http = script.handle
    h.start()
    authorization = case["authorization"]
    script.match_url(
        "authorization", authorization["url"], h.authorization_url, authorization["params"]
    )
    callback = case.get("callback", {})
    response = h.come_back(method=callback.get("method", "GET"), **callback.get("params", {}))
    if script.position < len(script.steps):
        script.problems.append(f"requests not sent: {script.steps[script.position :]}")
    verifier = script.chosen.get("<code_verifier>")
    if verifier is not None and _challenge(verifier) != script.chosen.get("<code_challenge>"):
        script.problems.append("the code_verifier does not hash to the code_challenge")
    assert not script.problems, "\n".join(script.problems)
    event = h.assert_signed_in(response)
    assert h.session_user() == case["user"]
    account = event["account"]
    assert {key: account.get(key) for key in case["account"]} == case["account"]
