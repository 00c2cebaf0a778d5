"""Dropbox from recorded API responses: offline access, the ``POST`` account request."""

from sansio_auth.providers import Dropbox, DropboxProvider
from tests.sansio_auth.providers.recorded import fixture, headers_of
from tests.sansio_auth.providers.service import Harness

TOKEN = "https://api.dropboxapi.com/oauth2/token"
ACCOUNT = "https://api.dropboxapi.com/2/users/get_current_account"
ENV = {"AUTH_DROPBOX_ID": "x1y2z3appkey", "AUTH_DROPBOX_SECRET": "dbx-recorded-secret"}


def test_defaults_match_auth_js():
    provider = Dropbox()
    assert isinstance(provider, DropboxProvider)
    assert (provider.id, provider.name, provider.type) == ("dropbox", "Dropbox", "oauth")
    assert provider.authorization.url == "https://www.dropbox.com/oauth2/authorize"
    assert (provider.token.url, provider.userinfo.url) == (TOKEN, ACCOUNT)
    assert provider.checks == ("pkce",)


def test_sign_in():
    h = Harness.build(Dropbox, env=ENV)
    h.route("POST", TOKEN, fixture("dropbox/token.json"))
    h.route("POST", ACCOUNT, fixture("dropbox/account.json"))
    h.start()
    params = h.authorization
    assert h.authorization_url.startswith("https://www.dropbox.com/oauth2/authorize?")
    assert (params["scope"], params["token_access_type"]) == ("account_info.read", "offline")
    event = h.assert_signed_in(h.come_back())
    [token, account] = h.service.requests
    assert token.url == TOKEN
    assert headers_of(token)["authorization"].startswith("Basic ")
    assert (account.method, account.url, account.body) == ("POST", ACCOUNT, b"")
    assert "content-type" not in headers_of(account)
    assert headers_of(account)["authorization"].startswith("Bearer sl.u.")
    assert event["account"]["provider_account_id"] == "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc"
    assert event["account"]["uid"] == "12345"
    assert h.session_user() == {
        "name": "Franz Ferdinand (Personal)",
        "email": "franz@dropbox.com",
        "image": "https://dl-web.dropbox.com/account_photo/get/"
        "dbaphid%3AAAHWGmIXV3sUuOmBfTz0wPsiqHUpBWvv3ZA?vers=1556069330102&size=128x128",
    }
