"""The recorder's redaction of URLs: secret query parameters and secrets in the path."""

from io_bindings._recording import Redactor


def test_secret_query_parameters_are_redacted():
    redactor = Redactor()
    url = redactor.url("https://api.foursquare.com/v2/users/self?v=20230131&oauth_token=tok")
    assert url == "https://api.foursquare.com/v2/users/self?v=20230131&oauth_token=__redacted_1__"
    assert redactor.form("assertion=the-code&client_assertion=s") == (
        "assertion=__redacted_2__&client_assertion=__redacted_3__"
    )


def test_a_secret_seen_before_is_redacted_in_a_url_path():
    redactor = Redactor()
    token = redactor.tree({"access_token": "CNye4dqFLBICAAEY"})["access_token"]
    url = redactor.url("https://api.hubapi.com/oauth/v1/access-tokens/CNye4dqFLBICAAEY")
    assert url == f"https://api.hubapi.com/oauth/v1/access-tokens/{token}"


def test_urls_without_secrets_are_unchanged():
    redactor = Redactor()
    redactor.tree({"access_token": "v2"})
    url = "https://api.example.com/v2/users/me"
    assert redactor.url(url) == url
    assert redactor.url("/relative/v2") == "/relative/v2"
