"""The strategies draw what they promise, and the engine holds up under them."""

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sansio_auth import AuthConfig, Response
from sansio_auth.events import HTTPResponse
from sansio_auth.providers import Credentials
from sansio_auth.testing import ANN, SECRET, Browser, MemoryOP, authorize_from, strategies
from sansio_auth.testing.state_machine import is_session_cookie, refused

OP = MemoryOP()
CONFIG = AuthConfig(
    secret=SECRET,
    trust_host=True,
    providers=[Credentials(authorize=authorize_from([ANN])), OP.provider()],
)


def browser() -> Browser:
    OP.behave()
    return Browser(CONFIG, op=OP)


@given(strategies.requests())
def test_every_drawn_request_gets_a_response_and_a_refusal_sets_no_session(request):
    response = browser().send(request)
    assert isinstance(response, Response)
    assert 200 <= response.status < 600
    if refused(response, request.url):
        assert not any(is_session_cookie(c.name) for c in response.cookies if c.options.max_age)


def drawn(strategy: st.SearchStrategy[Any], n: int = 200) -> list[Any]:
    """``n`` values of ``strategy``, drawn the way a test draws them."""
    values: list[Any] = []

    @settings(max_examples=n, database=None, derandomize=True)
    @given(strategy)
    def collect(value: Any) -> None:
        values.append(value)

    collect()
    return values


def test_requests_cover_the_routes_and_methods():
    requests = drawn(strategies.requests(), n=400)
    assert {r.method for r in requests} >= {"GET", "POST", "PUT"}
    actions = {
        r.url.split("/auth/")[1].split("?")[0].split("/")[0] for r in requests if "/auth/" in r.url
    }
    assert actions >= {"signin", "callback", "session", "csrf", "signout", "providers"}
    assert any("cookie" in r.headers for r in requests)
    assert any(r.headers.get("content-type") == "application/json" for r in requests)


@given(strategies.provider_responses("token"))
def test_a_drawn_token_answer_never_crashes_and_signs_in_only_from_a_200(answer: HTTPResponse):
    b = browser()
    OP.answers["token"] = answer
    b.sign_in("op")
    ended = b.url
    if b.session() is not None:
        assert answer.status == 200
    else:
        assert "error=" in ended


@given(st.sampled_from(["discovery", "jwks"]).flatmap(strategies.provider_responses))
def test_a_drawn_discovery_or_jwks_answer_never_crashes(answer: HTTPResponse):
    b = browser()
    b.engine.cache.__init__()  # type: ignore[misc]  # cold: the answer is used
    OP.answers["discovery" if b"issuer" in answer.body else "jwks"] = answer
    b.sign_in("op")
    ended = b.url
    assert b.session() is not None or "error=" in ended


def test_provider_responses_draw_valid_and_broken_answers():
    answers = drawn(strategies.provider_responses("token", op=OP), 100)
    assert any(r.status == 200 and b"id_token" in r.body for r in answers)
    assert any(r.status >= 400 for r in answers)


@given(strategies.users())
def test_a_drawn_user_signs_in_with_its_password_only(user: dict[str, str]):
    config = AuthConfig(
        secret=SECRET, trust_host=True, providers=[Credentials(authorize=authorize_from([user]))]
    )
    b = Browser(config)
    b.sign_in("credentials", username=user["username"], password=user["password"] + "!")
    assert b.session() is None
    b.sign_in("credentials", username=user["username"], password=user["password"])
    assert b.session()["user"]["email"] == user["email"]


@given(strategies.profiles())
def test_a_drawn_profile_signs_in_at_the_op(profile: dict[str, Any]):
    b = browser()
    OP.users["drawn"] = profile
    b.sign_in("op", as_user="drawn")
    ended = b.url
    session = b.session()
    assert session is not None, ended
    assert session["user"].get("name") == profile.get("name")
