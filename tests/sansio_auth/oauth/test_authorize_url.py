"""The authorization request URL: merge order, protected parameters, default scope."""

from urllib.parse import parse_qsl, urlsplit

from sansio_auth.oauth.authorize_url import (
    authorization_url,
    is_form_post,
    param_text,
    request_params,
)


def test_param_text():
    assert param_text("a") == "a"
    assert param_text(True) == "true"
    assert param_text(3) == "3"
    assert param_text(None) is None
    assert param_text({"id_token": {"email": None}}) == '{"id_token":{"email":null}}'


def test_merge_order_and_protection():
    params = request_params(
        "https://op.example/authorize?scope=url-scope&audience=api",
        client_id="cid",
        redirect_uri="https://app/cb",
        provider_params={"scope": "provider-scope", "prompt": "consent", "state": "x"},
        request_query={"prompt": "login", "redirect_uri": "https://evil", "callbackUrl": "/x"},
    )
    assert params == {
        "response_type": "code",
        "client_id": "cid",
        "redirect_uri": "https://app/cb",
        "scope": "url-scope",
        "prompt": "login",
        "audience": "api",
    }


def test_url_with_checks_and_default_scope():
    url = authorization_url(
        "https://op.example/authorize?old=1",
        {"response_type": "code", "client_id": "c"},
        state="st",
        code_challenge="ch",
        nonce="n",
        default_scope="openid profile email",
    )
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "op.example", "/authorize")
    assert list(parse_qsl(parts.query)) == [
        ("response_type", "code"),
        ("client_id", "c"),
        ("state", "st"),
        ("code_challenge", "ch"),
        ("code_challenge_method", "S256"),
        ("nonce", "n"),
        ("scope", "openid profile email"),
    ]
    kept = authorization_url("https://op/a", {"scope": "x"}, default_scope="openid")
    assert dict(parse_qsl(urlsplit(kept).query)) == {"scope": "x"}


def test_form_post():
    assert is_form_post({"response_mode": "form_post"})
    assert not is_form_post({"response_mode": "query"})
