"""The recorder's redaction of URLs (secret query parameters and secrets in the path) and of
the API-key headers providers send."""

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


def test_api_key_headers_are_redacted():
    headers = [
        ["X-API-Key", "bungie-application-key"],  # Bungie.net
        ["X-Postmark-Server-Token", "postmark-server-token"],  # Postmark
        ["trakt-api-key", "the-client-id"],  # Trakt's is the public client id
    ]
    assert Redactor().headers(headers) == [
        ["X-API-Key", "__redacted_1__"],
        ["X-Postmark-Server-Token", "__redacted_2__"],
        ["trakt-api-key", "the-client-id"],
    ]
