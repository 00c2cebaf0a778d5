"""``GET csrf`` answered without its flow (as :meth:`~sansio_auth.Engine.handle` does) gives
exactly the flow's answer, on generated configurations and cookies: the same status,
headers, body and cookies (a new token and its cookie, an older secret's cookie made again
with the first, a valid one kept), and it is taken only where the flow performs no action
(CSRF checks off: the flow answers, logging its warning)."""

from __future__ import annotations

import hashlib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sansio_auth import Flow, Request, skip_csrf_check
from sansio_auth.http import split_url
from tests.sansio_auth.driver import ORIGIN, SECRET, AuthPair

NEW_SECRET = "a-newer-secret-0123456789abcdefghijklmnop"
TOKEN = "ab" * 32

configs = st.fixed_dictionaries(
    {
        "secrets": st.sampled_from([(SECRET,), (NEW_SECRET, SECRET)]),
        "secure": st.sampled_from([None, True, False]),
        "auth_url": st.sampled_from([None, "https://auth.example/auth", "http://localhost/auth"]),
        "skip": st.booleans(),
        "debug": st.booleans(),
    }
)
KINDS = ("absent", "first secret", "last secret", "joined secrets", "tampered", "garbage",
         "no token")  # fmt: skip
cookies = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(list(KINDS)),
        "secure_name": st.booleans(),
        "origin": st.sampled_from(["http", "https", "forwarded https"]),
        "query": st.sampled_from(["", "?callbackUrl=%2Fpage"]),
    }
)


def _digest(secret: str) -> str:
    return hashlib.sha256((TOKEN + secret).encode()).hexdigest()


def cookie_value(kind: str, secrets: tuple[str, ...]) -> str | None:
    values = {
        "absent": None,
        "first secret": f"{TOKEN}|{_digest(secrets[0])}",
        "last secret": f"{TOKEN}|{_digest(secrets[-1])}",
        "joined secrets": f"{TOKEN}|{_digest(','.join(secrets))}",
        "tampered": f"{TOKEN}|{_digest(secrets[0])[:-1]}0",
        "garbage": "not-a-token",
        "no token": f"|{_digest(secrets[0])}",
    }
    return values[kind]


def pair_for(config: dict[str, Any]) -> AuthPair:
    options: dict[str, Any] = {"secret": list(config["secrets"]), "debug": config["debug"]}
    if config["skip"]:
        options["skip_csrf_check"] = skip_csrf_check
    env = {"AUTH_URL": config["auth_url"]} if config["auth_url"] else {}
    return AuthPair.build(use_secure_cookies=config["secure"], env=env, seed=5, **options)


def request_for(pair: AuthPair, config: dict[str, Any], cookie: dict[str, Any]) -> Request:
    origin = "https://app.example" if cookie["origin"] == "https" else ORIGIN
    headers = {"x-forwarded-proto": "https"} if cookie["origin"] == "forwarded https" else {}
    value = cookie_value(cookie["kind"], config["secrets"])
    if value is not None:
        name = pair.engine.settings.cookies_for(cookie["secure_name"]).csrf_token.name
        headers["cookie"] = f"{name}={value.replace('|', '%7C')}"
    return Request(method="GET", url=f"{origin}/auth/csrf{cookie['query']}", headers=headers)


@settings(max_examples=300, deadline=None)
@given(config=configs, cookie=cookies)
def test_get_csrf_without_its_flow_answers_as_the_flow(
    config: dict[str, Any], cookie: dict[str, Any]
) -> None:
    answers = []
    for way in ("flow", "as served"):
        pair = pair_for(config)
        request = request_for(pair, config, cookie)
        if way == "flow":
            flow = Flow(pair.engine._serve(request, *split_url(request.url), now=None))
        else:
            flow = handled(pair, request)
            assert (flow.answer is not None) == (not config["skip"])
        response = pair.performer.run(flow)
        answers.append((response, [type(a).__name__ for a in pair.performer.actions]))
    (flow_response, flow_actions), (response, actions) = answers
    assert response == flow_response  # status, headers, cookies, body
    assert actions == flow_actions


def handled(pair: AuthPair, request: Request) -> Flow:
    flow = pair.engine.handle(request)
    assert isinstance(flow, Flow)
    return flow


def test_a_valid_cookie_of_the_first_secret_is_kept_and_another_made_again() -> None:
    config = {"secrets": (NEW_SECRET, SECRET), "secure": False, "auth_url": None,
              "skip": False, "debug": False}  # fmt: skip
    pair = pair_for(config)
    kept = {"kind": "first secret", "secure_name": False, "origin": "http", "query": ""}
    response = pair.performer.run(handled(pair, request_for(pair, config, kept)))
    assert response.json() == {"csrfToken": TOKEN}
    assert response.cookies == ()
    older = {**kept, "kind": "last secret"}
    response = pair.performer.run(handled(pair, request_for(pair, config, older)))
    assert response.json() == {"csrfToken": TOKEN}
    assert [c.value for c in response.cookies] == [f"{TOKEN}|{_digest(NEW_SECRET)}"]


def test_a_cookie_whose_digest_is_not_ascii_is_replaced_not_a_crash() -> None:
    """Found by the atheris pass: a digest with non-ASCII characters made the comparison
    raise (``hmac.compare_digest`` refuses such a ``str``)."""
    pair = pair_for({"secrets": (SECRET,), "secure": False, "auth_url": None,
                     "skip": False, "debug": False})  # fmt: skip
    cookie = f"authjs.csrf-token={TOKEN}|\xff\xff{_digest(SECRET)[2:]}"
    request = Request(method="GET", url=f"{ORIGIN}/auth/csrf", headers={"cookie": cookie})
    response = pair.performer.run(handled(pair, request))
    assert response.status == 200
    assert response.json()["csrfToken"] != TOKEN
    assert [c.name for c in response.cookies] == ["authjs.csrf-token"]
