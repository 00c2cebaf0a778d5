"""hypothesis strategies for the engine's inputs: requests, provider answers, users, profiles.

Each strategy mixes well-formed values with near misses and junk, so a property
("no exception escapes", "a refused input writes nothing") meets both.

>>> from hypothesis import given
>>> from sansio_auth.testing import Browser, strategies
>>> @given(strategies.requests())
... def test_any_request_gets_an_answer(request):
...     assert Browser(config).send(request).status < 600
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal
from urllib.parse import quote, urlencode

from hypothesis import strategies as st

from .._routes import ACTIONS
from ..events import HTTPResponse
from ..http import Request
from .browser import ORIGIN
from .op import ENDPOINTS, MemoryOP

Endpoint = Literal["discovery", "jwks", "token", "userinfo"]
"""An endpoint of an OpenID Provider whose responses :func:`provider_responses` draws."""

_JSON = {"content-type": "application/json"}
_FIELDS = (
    "csrfToken",
    "callbackUrl",
    "username",
    "password",
    "email",
    "token",
    "code",
    "state",
    "iss",
    "error",
    "data",
    "redirect",
)
_COOKIES = (
    "authjs.session-token",
    "authjs.session-token.0",
    "authjs.csrf-token",
    "authjs.callback-url",
    "authjs.state",
    "authjs.pkce.code_verifier",
    "authjs.nonce",
)

_texts = st.text(max_size=40)
_tokens = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.~%|=", max_size=60)
_urls = st.one_of(
    st.sampled_from(["/", "/dashboard", ORIGIN + "/x", "https://evil.example/", "//evil.example"]),
    _texts,
)


def _values() -> st.SearchStrategy[str]:
    return st.one_of(_tokens, _urls, _texts)


@st.composite
def _paths(draw: st.DrawFn, base_path: str, provider_ids: Sequence[str]) -> str:
    """Mostly ``<base>/<action>[/<provider>]`` (known names, 1 in 5 junk), else odd paths."""
    kind = draw(st.sampled_from(["route"] * 8 + ["odd", "base"]))
    if kind == "base":
        return base_path
    if kind == "odd":
        return f"{base_path}/{quote(draw(_texts), safe='/%')}"
    action = draw(st.sampled_from([*sorted(ACTIONS), ""]))
    if not action:
        action = draw(_tokens)
    provider = draw(st.sampled_from([None, None, *provider_ids, "nope", ""]))
    if provider == "":
        provider = draw(_tokens)
    return f"{base_path}/{action}" + ("" if provider is None else f"/{quote(provider, safe='')}")


def _forms() -> st.SearchStrategy[dict[str, str]]:
    return st.dictionaries(st.one_of(st.sampled_from(_FIELDS), _tokens), _values(), max_size=5)


def _bodies() -> st.SearchStrategy[tuple[str | None, bytes]]:
    form = _forms().map(lambda f: ("application/x-www-form-urlencoded", urlencode(f).encode()))
    as_json = st.builds(
        lambda f, data: ("application/json", json.dumps({**f, "data": data}).encode()),
        _forms(),
        st.none() | st.dictionaries(_tokens, _values(), max_size=3),
    )
    raw = st.tuples(st.none() | st.sampled_from(["text/plain", "application/json"]), st.binary())
    return st.one_of(st.just((None, b"")), form, form, as_json, raw)


def _cookie_headers() -> st.SearchStrategy[str]:
    pair = st.tuples(st.one_of(st.sampled_from(_COOKIES), _tokens), _tokens)
    return st.lists(pair, max_size=4).map(lambda pairs: "; ".join(f"{k}={v}" for k, v in pairs))


def requests(
    *,
    base_path: str = "/auth",
    origin: str = ORIGIN,
    provider_ids: Sequence[str] = ("credentials", "op", "email"),
) -> st.SearchStrategy[Request]:
    """Requests to every route under ``base_path``: mostly ``GET``/``POST`` to a known
    action (with a known provider id, an unknown one or junk), with query strings, form
    or JSON bodies and cookies drawn from the fields and cookie names the engine reads,
    plus raw bodies, odd methods and odd paths. Give them to :meth:`Browser.send
    <sansio_auth.testing.Browser.send>` (add the browser's ``cookie`` header to test
    them signed in)."""
    method = st.one_of(st.sampled_from(["GET", "POST"]), st.sampled_from(["PUT", "HEAD", "get"]))
    query = st.dictionaries(st.one_of(st.sampled_from(_FIELDS), _tokens), _values(), max_size=3)

    def build(
        method: str,
        path: str,
        query: Mapping[str, str],
        body: tuple[str | None, bytes],
        cookie: str,
        extra: Mapping[str, str],
    ) -> Request:
        content_type, payload = body
        headers = dict(extra)
        if content_type is not None:
            headers["content-type"] = content_type
        if cookie:
            headers["cookie"] = cookie
        url = origin + path + (f"?{urlencode(query)}" if query else "")
        return Request(method=method, url=url, headers=headers, body=payload)

    extra_headers = st.dictionaries(
        st.sampled_from(["x-auth-return-redirect", "x-forwarded-host", "x-forwarded-proto"]),
        _tokens,
        max_size=2,
    )
    return st.builds(
        build,
        method,
        _paths(base_path, provider_ids),
        query,
        _bodies(),
        _cookie_headers(),
        extra_headers,
    )


def users() -> st.SearchStrategy[dict[str, str]]:
    """Accounts for :func:`~sansio_auth.testing.authorize_from`: ``username``,
    ``password``, ``id``, ``name`` and ``email`` (any text, not only the tidy kind)."""
    return st.fixed_dictionaries(
        {
            "username": st.text(min_size=1, max_size=20),
            "password": st.text(min_size=1, max_size=20),
            "id": st.text(alphabet="0123456789abcdef", min_size=1, max_size=12),
            "name": _texts,
            "email": st.emails(),
        }
    )


def profiles() -> st.SearchStrategy[dict[str, Any]]:
    """OpenID Connect claims of a user (for ``MemoryOP.users``): a non-empty ``sub``,
    and optionally ``name``, ``email``, ``email_verified``, ``picture`` and odd extra claims."""
    optional = {
        "name": st.none() | _texts,
        "email": st.emails() | _texts,
        "email_verified": st.booleans(),
        "picture": _urls,
        "locale": _texts,
    }
    extra = st.dictionaries(
        st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12).filter(
            lambda k: k not in {"iss", "aud", "exp", "iat", "nbf", "nonce", "sub", "azp"}
        ),
        st.one_of(_texts, st.integers(), st.booleans(), st.lists(_texts, max_size=2)),
        max_size=2,
    )
    return st.builds(
        lambda sub, fields, more: {**more, "sub": sub, **fields},
        st.text(min_size=1, max_size=30),
        st.fixed_dictionaries({}, optional=optional),
        extra,
    )


def _broken(endpoint: str) -> st.SearchStrategy[HTTPResponse]:
    status = st.sampled_from([200, 200, 400, 401, 404, 500, 503])
    body = st.one_of(
        st.binary(max_size=64),
        st.just(b""),
        st.just(b'{"access_token": "x", '),
        st.builds(
            lambda v: json.dumps(v).encode(),
            st.one_of(
                st.lists(st.integers(), max_size=3),
                st.integers(),
                st.text(max_size=10),
                st.none(),
                st.fixed_dictionaries(
                    {"error": st.sampled_from(["invalid_grant", "server_error"])}
                ),
                st.dictionaries(_tokens, st.one_of(_texts, st.integers(), st.none()), max_size=4),
            ),
        ),
    )
    content_type = st.sampled_from(["application/json", "text/html", ""])
    return st.builds(
        lambda s, b, t: HTTPResponse(status=s, headers={"content-type": t} if t else {}, body=b),
        status,
        body,
        content_type,
    )


def _valid(endpoint: str, op: MemoryOP) -> st.SearchStrategy[HTTPResponse]:
    def as_json(value: Any) -> HTTPResponse:
        return HTTPResponse(status=200, headers=_JSON, body=json.dumps(value).encode())

    def without(keys: Sequence[str]) -> Any:
        return lambda value: {k: v for k, v in value.items() if k not in keys}

    if endpoint == "discovery":
        document = st.builds(op.document)
        keys = st.lists(st.sampled_from(sorted(op.document())), max_size=2)
        return st.builds(lambda d, k: as_json(without(k)(d)), document, keys)
    if endpoint == "jwks":
        return st.builds(op.jwks).map(as_json)
    if endpoint == "userinfo":
        return profiles().map(as_json)
    token = st.fixed_dictionaries(
        {"access_token": _tokens.filter(bool), "token_type": st.sampled_from(["Bearer", "bearer"])},
        optional={
            "expires_in": st.integers(-10, 10**6),
            "refresh_token": _tokens,
            "scope": st.sampled_from(["openid", "openid email profile", ""]),
            "id_token": st.builds(lambda: op.id_token(next(iter(op.users)))),
        },
    )
    return token.map(as_json)


def provider_responses(
    endpoint: Endpoint | None = None, *, op: MemoryOP | None = None
) -> st.SearchStrategy[HTTPResponse]:
    """Answers to the engine's requests at ``endpoint`` (any of them if ``None``): bodies
    shaped as ``op`` (a fresh :class:`~sansio_auth.testing.MemoryOP` by default) would
    send them, some with fields left out, and broken ones (error statuses, OAuth error
    bodies, wrong JSON types, truncated or non-JSON bodies).

    Put one in ``op.answers[endpoint]`` to have the OP give it instead of its own.
    """
    op = op or MemoryOP()
    names = ENDPOINTS if endpoint is None else (endpoint,)
    return st.one_of(*(st.one_of(_valid(name, op), _broken(name)) for name in names))
