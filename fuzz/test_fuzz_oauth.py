"""Fuzz targets for the OAuth/OIDC client (hypothesis).

1. The authorization-response parser: any parameters give a code that passed every
   check, or one of its documented errors — nothing else.
2. The token-response parser: any status and body give a token set that keeps its
   invariants, or :class:`TokenResponseError`.
3. ID token reading and claim checks, discovery and JWKS documents: documented errors only.
4. Through the engine: an arbitrary callback after a real sign-in start never raises,
   always redirects, and a session appears only for the genuine code and state.
"""

from __future__ import annotations

import contextlib
import json
import math
import string
from urllib.parse import urlencode

from hypothesis import given
from hypothesis import strategies as st

from sansio_auth.fetch import ProviderResponseError
from sansio_auth.http import Params
from sansio_auth.oauth.callback import (
    AuthorizationResponseError,
    ProviderDenied,
    parse_authorization_response,
)
from sansio_auth.oauth.discovery import parse_jwks, parse_metadata
from sansio_auth.oauth.id_token import IDTokenError, check_claims, verify_signature
from sansio_auth.oauth.tokens import TokenResponseError, parse_token_response
from tests.sansio_auth.driver import ORIGIN, query_of, written
from tests.sansio_auth.oauth.fake_op import ISSUER, FakeOP, b64url, build, rsa_key, start

NOW = 1_800_000_000.25
PARAM_NAMES = ["code", "state", "iss", "error", "error_description", "id_token", "token", "x"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
texts = st.text(max_size=30) | st.sampled_from(["s1", "c0de", ISSUER, "", "access_denied"])


@given(
    params=st.dictionaries(st.sampled_from(PARAM_NAMES) | st.text(max_size=8), texts | json_values),
    state=st.none() | st.sampled_from(["s1", ""]),
    issuer=st.none() | st.just(ISSUER),
    iss_required=st.booleans(),
)
def test_authorization_response_parser(params, state, issuer, iss_required):
    try:
        result = parse_authorization_response(
            params, expected_state=state, issuer=issuer, iss_required=iss_required
        )
    except (AuthorizationResponseError, ProviderDenied):
        return
    assert "response" not in params
    assert result.code == params["code"]
    assert isinstance(result.code, str)
    assert result.code
    assert "error" not in params
    assert not {"id_token", "token", "access_token"} & set(params)
    if state is not None:
        assert params["state"] == state
    if iss_required:
        assert params["iss"] == issuer or issuer is None
    if "iss" in params and issuer is not None:
        assert params["iss"] == issuer


@given(
    pairs=st.lists(
        st.tuples(st.sampled_from(["code", "state", "iss", "error", "response", "x"]), texts),
        max_size=6,
    ),
)
def test_a_repeated_parameter_is_never_accepted(pairs):
    """RFC 6749 §3.1, on the parsed query as the engine parses it (repetitions kept)."""
    params = Params(pairs)
    try:
        result = parse_authorization_response(
            params, expected_state=None, issuer=ISSUER, iss_required=False, repeated=params.repeated
        )
    except (AuthorizationResponseError, ProviderDenied):
        return
    names = [name for name, _ in pairs]
    assert len(names) == len(set(names))
    assert "response" not in names
    assert result.code == dict(pairs)["code"]


TOKEN_KEYS = ["access_token", "token_type", "expires_in", "refresh_token", "scope", "id_token"]
token_values = (
    json_values
    | st.sampled_from(["Bearer", "bearer", "DPoP", "mac", "3600", "-1", "1e400", "nan", " 60 "])
    | st.floats()
)
token_bodies = st.one_of(
    st.dictionaries(
        st.sampled_from([*TOKEN_KEYS, "error"]) | st.text(max_size=6), token_values
    ).map(lambda d: json.dumps(d, allow_nan=True).encode()),
    st.binary(max_size=60),
    json_values.map(lambda v: json.dumps(v, allow_nan=True).encode()),
)


@given(status=st.sampled_from([200, 200, 200, 400, 401, 500, 201]), body=token_bodies)
def test_token_response_parser(status, body):
    try:
        tokens = parse_token_response(status, body, now=NOW)
    except TokenResponseError:
        return
    assert status == 200
    assert isinstance(tokens["access_token"], str)
    assert tokens["access_token"]
    assert tokens["token_type"] in ("bearer", "dpop")
    assert "error" not in tokens or not isinstance(tokens["error"], str)
    for name in ("refresh_token", "id_token", "scope"):
        assert name not in tokens or isinstance(tokens[name], str)
    assert None not in tokens.values()
    if "expires_in" in tokens:
        seconds = tokens["expires_in"]
        assert isinstance(seconds, int | float)
        assert not isinstance(seconds, bool)
        assert math.isfinite(seconds)
        assert seconds >= 0
        assert tokens["expires_at"] == math.floor(NOW) + math.floor(seconds)
    elif "expires_at" in tokens:
        assert type(tokens["expires_at"]) is int


segments = st.text(alphabet=string.ascii_letters + string.digits + "-_=.!", max_size=40)
headers = st.dictionaries(
    st.sampled_from(["alg", "kid", "typ", "crit"]),
    st.sampled_from(["RS256", "none", "HS256", "ES256", "key-1", None, 5]) | json_values,
).map(lambda h: b64url(json.dumps(h).encode()))


@given(token=st.one_of(segments, st.tuples(headers, segments, segments).map(".".join)))
def test_id_token_reader(token):
    keys = [rsa_key("key-1").as_dict(private=False), {"kty": "oct", "k": "AAAA", "kid": "key-1"}]
    try:
        verify_signature(token, keys, ["RS256", "ES256"])
    except IDTokenError:
        return
    raise AssertionError("an unsigned or random token verified")


@given(
    claims=st.dictionaries(
        st.sampled_from(["iss", "sub", "aud", "azp", "exp", "iat", "nbf", "nonce"]),
        st.sampled_from([ISSUER, "cid", ["cid", "x"], NOW, NOW + 10_000, NOW - 10_000, "n"])
        | json_values,
    ),
    nonce=st.none() | st.just("n"),
)
def test_claim_checks(claims, nonce):
    try:
        check_claims(claims, issuer=ISSUER, client_id="cid", now=NOW, nonce=nonce)
    except IDTokenError:
        return
    assert claims["iss"] == ISSUER
    assert claims["exp"] > NOW - 30
    assert claims.get("nonce") == nonce


@given(body=st.binary(max_size=80) | json_values.map(lambda v: json.dumps(v).encode()))
def test_discovery_and_jwks_documents(body):
    for parse in (lambda b: parse_metadata(b, ISSUER), parse_jwks):
        with contextlib.suppress(ProviderResponseError):
            parse(body)


CALLBACK_NAMES = ["code", "state", "iss", "error", "id_token"]


@given(
    data=st.data(),
    checks=st.sampled_from([["pkce"], ["state"], ["pkce", "state", "nonce"]]),
)
def test_arbitrary_callbacks_through_the_engine(data, checks):
    op = FakeOP(iss_parameter=data.draw(st.booleans()))
    pair = build(op, checks=checks)
    started = start(pair.browser)
    genuine = op.authorize(started.location).params
    params = data.draw(
        st.dictionaries(
            st.sampled_from(CALLBACK_NAMES),
            st.sampled_from(
                [*genuine.values(), "", "x", query_of(started.location).get("state", "")]
            )
            | st.text(max_size=10),
        )
    )
    if data.draw(st.booleans()):
        del pair.browser.jar["authjs.pkce.code_verifier" if "pkce" in checks else "authjs.state"]
    response = pair.browser.get(f"{ORIGIN}/auth/callback/op?{urlencode(params)}")
    assert response.status == 302
    assert response.location is not None
    if any(name.startswith("authjs.session-token") for name in written(response)):
        assert params.get("code") == genuine["code"]
        assert "error" not in params
        assert response.location == ORIGIN
    else:
        assert (
            "/auth/error?error=" in response.location or "/auth/signin?error=" in response.location
        )
