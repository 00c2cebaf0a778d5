"""Plain OAuth 2.0 providers, the account decisions of a JWT sign-in, and the redirect proxy."""

import pytest

from sansio_auth import AuthConfig
from sansio_auth.events import InvokeCallback
from tests.sansio_auth.driver import ORIGIN, SECRET, AuthPair, query_of, written
from tests.sansio_auth.oauth.fake_op import (
    CLIENT_ID,
    CLIENT_SECRET,
    FakeOP,
    assert_failed,
    build,
    sign_in,
    start,
)

SESSION = "authjs.session-token"


def oauth_options(op, **options):
    """An ``oauth`` provider for ``op``'s endpoints (no issuer, no discovery)."""
    return {
        "type": "oauth",
        "issuer": None,
        "authorization": {"url": op.endpoint("authorize"), "params": {"scope": "profile"}},
        "token": op.endpoint("token"),
        "userinfo": op.endpoint("userinfo"),
        **options,
    }


def profile(profile, tokens):
    return {
        "id": profile["sub"],
        "name": profile["name"].upper(),
        "email": profile["email"],
        "role": "reader" if tokens["access_token"] else None,
    }


def test_oauth_provider_with_endpoints_and_a_profile_function():
    op = FakeOP()
    pair = build(op, **oauth_options(op, profile=profile))
    response = sign_in(pair.browser, op)
    assert response.location == ORIGIN
    assert SESSION in written(response)
    assert op.count("discovery") == 0
    assert pair.browser.session()["user"] == {
        "name": "ALICE LIDDELL",
        "email": "alice@example.com",
    }
    [call] = pair.performer.invoked("profile")
    assert call["profile"]["sub"] == "alice-sub"  # the userinfo answer
    assert call["tokens"]["access_token"].startswith("at-")
    [event] = pair.performer.emitted("sign_in")
    assert event["account"]["type"] == "oauth"
    assert event["account"]["provider_account_id"] == "alice-sub"
    assert event["user"]["role"] == "reader"
    assert event["is_new_user"] is False


def test_oauth_provider_sends_no_default_scope():
    op = FakeOP()
    pair = build(op, **oauth_options(op, authorization=op.endpoint("authorize")))
    assert "scope" not in query_of(start(pair.browser).location)


def test_oauth_provider_from_discovery():
    op = FakeOP()
    pair = build(op, type="oauth")
    assert sign_in(pair.browser, op).location == ORIGIN
    assert op.count("discovery") == 1
    assert op.count("userinfo") == 1


def test_custom_userinfo_request():
    calls = []

    def request(tokens, provider):
        calls.append((tokens["access_token"], provider.id))
        return {"id": 7, "name": "Seven"}

    op = FakeOP()
    pair = build(op, **oauth_options(op, userinfo={"request": request}))
    response = sign_in(pair.browser, op)
    assert SESSION in written(response)
    assert calls == [(calls[0][0], "op")]
    assert op.count("userinfo") == 0
    [event] = pair.performer.emitted("sign_in")
    assert event["account"]["provider_account_id"] == "7"  # always text


def test_jwt_callback_on_sign_in():
    seen = []

    def jwt(token, user, account, profile, trigger, is_new_user):
        seen.append((dict(token), user, account, profile, trigger, is_new_user))
        return {**token, "access_token": account["access_token"]}

    op = FakeOP()
    pair = build(op, refresh=False, config={"callbacks": {"jwt": jwt}})  # Auth.js's token
    sign_in(pair.browser, op)
    [(token, user, account, profile, trigger, is_new_user)] = seen
    assert trigger == "signIn"
    assert is_new_user is False
    assert token == {
        "name": "Alice Liddell",
        "email": "alice@example.com",
        "picture": "https://op.example/alice.png",
        "sub": user["id"],
        "auth_time": int(pair.clock.now),  # ours: when the user signed in (freshness)
    }
    assert account["provider"] == "op"
    assert account["token_type"] == "bearer"
    assert profile["sub"] == "alice-sub"


def test_sign_in_callback_refuses():
    op = FakeOP()
    pair = build(op, config={"callbacks": {"sign_in": lambda profile: False}})
    assert_failed(pair, sign_in(pair.browser, op), "AccessDenied", because="refused")


def test_sign_in_callback_raises():
    def sign_in_callback(**_):
        raise RuntimeError("nope")

    op = FakeOP()
    pair = build(op, config={"callbacks": {"sign_in": sign_in_callback}})
    assert_failed(pair, sign_in(pair.browser, op), "AccessDenied", because="nope")


def test_sign_in_callback_redirects():
    op = FakeOP()
    pair = build(op, config={"callbacks": {"sign_in": lambda: "/not-yet"}})
    response = sign_in(pair.browser, op)
    assert response.location == f"{ORIGIN}/not-yet"
    assert SESSION not in written(response)
    assert pair.performer.emitted("sign_in") == []


def test_sign_in_callback_sees_user_account_and_profile():
    seen = {}

    def sign_in_callback(user, account, profile):
        seen.update(user=user, account=account, profile=profile)
        return profile["email_verified"] is True

    op = FakeOP()
    pair = build(op, config={"callbacks": {"sign_in": sign_in_callback}})
    assert SESSION in written(sign_in(pair.browser, op))
    assert seen["account"]["provider_account_id"] == "alice-sub"
    assert seen["user"]["email"] == "alice@example.com"


def test_profile_function_raises():
    def broken(profile):
        raise KeyError("login")

    op = FakeOP()
    pair = build(op, profile=broken)
    response = sign_in(pair.browser, op)
    assert_failed(pair, response, because="login")
    assert pair.performer.log_codes("error") == ["OAuthProfileParseError"]


def test_profile_without_an_id():
    op = FakeOP()
    pair = build(op, profile=lambda profile: {"name": profile["name"]})
    assert_failed(pair, sign_in(pair.browser, op), because="profile has no id")


def test_jwt_callback_returning_none_sets_no_session():
    op = FakeOP()
    pair = build(op, config={"callbacks": {"jwt": lambda token: None}})
    response = sign_in(pair.browser, op)
    assert response.location == ORIGIN
    assert SESSION not in written(response)


def test_async_callbacks():
    async def sign_in_callback(user):
        return True

    async def profile_fn(profile):
        return {"id": profile["sub"], "name": "async"}

    op = FakeOP()
    pair = build(op, profile=profile_fn, config={"callbacks": {"sign_in": sign_in_callback}})
    sign_in(pair.browser, op)
    assert pair.browser.session()["user"] == {"name": "async"}


def test_env_inference_fills_the_provider():
    op = FakeOP()
    env = {"AUTH_MY_OP_ID": CLIENT_ID, "AUTH_MY_OP_SECRET": CLIENT_SECRET}
    env["AUTH_MY_OP_ISSUER"] = op.issuer
    config = AuthConfig(
        secret=SECRET, trust_host=True, providers=[{"id": "my-op", "name": "OP", "type": "oidc"}]
    )
    pair = AuthPair.build(config, env=env)
    op.connect(pair)
    provider = pair.engine.settings.providers_by_id["my-op"]
    assert (provider.client_id, provider.client_secret, provider.issuer) == (
        CLIENT_ID,
        CLIENT_SECRET,
        op.issuer,
    )
    assert SESSION in written(sign_in(pair.browser, op, "my-op"))


# -- redirect proxy (§6.10) ------------------------------------------------------------------------

PROXY = "https://auth.example.com"
PREVIEW = "https://preview-42.example.com"


def proxy_pairs(op, **proxy_env):
    """The stable deployment that owns the redirect URI, and a preview deployment."""
    providers = [op.provider()]
    env = {"AUTH_REDIRECT_PROXY_URL": f"{PROXY}/auth", **proxy_env}
    proxy = AuthPair.build(providers=providers, env=env, origin=PROXY)
    preview = AuthPair.build(providers=providers, env=env, origin=PREVIEW)
    op.connect(preview)
    proxy.performer.http = op.handle
    return proxy, preview


def test_redirect_proxy_round_trip():
    op = FakeOP()
    proxy, preview = proxy_pairs(op)
    started = start(preview.browser)
    params = query_of(started.location)
    assert params["redirect_uri"] == f"{PROXY}/auth/callback/op"
    assert "state" in params  # forced by the proxy
    result = op.authorize(started.location)
    assert result.url == f"{PROXY}/auth/callback/op"
    hop = result.follow(proxy.browser)  # the browser lands on the proxy...
    assert hop.location.startswith(f"{PREVIEW}/auth/callback/op?")
    assert query_of(hop.location) == result.params
    assert op.count("token") == 0
    response = preview.browser.get(hop.location)  # ...which sends it back to the preview
    assert response.location == PREVIEW
    assert f"__Secure-{SESSION}" in written(response)
    [token_request] = [r for r in op.requests if r.url == op.endpoint("token")]
    assert f"redirect_uri={PROXY.replace(':', '%3A').replace('/', '%2F')}" in (
        token_request.body.decode()
    )


def test_sign_in_on_the_proxy_itself():
    op = FakeOP()
    proxy, _ = proxy_pairs(op)
    op.connect(proxy)
    response = sign_in(proxy.browser, op)
    assert response.location == PROXY
    assert f"__Secure-{SESSION}" in written(response)


def test_redirect_proxy_refuses_a_forged_state():
    op = FakeOP()
    proxy, _ = proxy_pairs(op)
    response = proxy.browser.get(f"{PROXY}/auth/callback/op?code=x&state=forged")
    assert response.location == f"{PROXY}/auth/error?error=Configuration"


def test_redirect_proxy_per_provider_and_not_with_form_post():
    op = FakeOP()
    pair = build(op, redirect_proxy_url=f"{PROXY}/auth")
    assert query_of(start(pair.browser).location)["redirect_uri"] == f"{PROXY}/auth/callback/op"
    form_post = build(
        op,
        redirect_proxy_url=f"{PROXY}/auth",
        authorization={"params": {"response_mode": "form_post"}},
    )
    params = query_of(start(form_post.browser).location)
    assert params["redirect_uri"] == f"{ORIGIN}/auth/callback/op"
    assert "state" not in params


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_callback_of_an_unknown_provider(method):
    op = FakeOP()
    pair = build(op)
    response = pair.browser.request(method, f"{ORIGIN}/auth/callback/nope?code=x")
    assert response.location == f"{ORIGIN}/auth/error?error=Configuration"


def test_sign_in_callback_returning_nothing_denies():
    op = FakeOP()
    pair = build(op, config={"callbacks": {"sign_in": lambda: None}})
    assert_failed(pair, sign_in(pair.browser, op), "AccessDenied")
    invoked = [a.name for a in pair.performer.actions if isinstance(a, InvokeCallback)]
    assert "jwt" not in invoked
