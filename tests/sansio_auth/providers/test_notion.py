"""Notion from recorded API responses: ``owner=user``, the Notion-Version header, the bot owner."""

from sansio_auth.providers import Notion, NotionProvider
from tests.sansio_auth.oauth.fake_op import assert_failed
from tests.sansio_auth.providers.recorded import fixture, headers_of, json_response
from tests.sansio_auth.providers.service import Harness

TOKEN = "https://api.notion.com/v1/oauth/token"
ME = "https://api.notion.com/v1/users/me"
ENV = {"AUTH_NOTION_ID": "1a2b3c4d-recorded-client", "AUTH_NOTION_SECRET": "secret_recorded"}


def notion(me=None):
    h = Harness.build(Notion, env=ENV)
    h.route("POST", TOKEN, fixture("notion/token.json"))
    h.route("GET", ME, me or fixture("notion/users_me.json"))
    return h


def test_defaults_match_auth_js():
    provider = Notion()
    assert isinstance(provider, NotionProvider)
    assert (provider.id, provider.name, provider.type) == ("notion", "Notion", "oauth")
    assert provider.authorization.url == "https://api.notion.com/v1/oauth/authorize"
    assert (provider.token.url, provider.userinfo.url) == (TOKEN, ME)


def test_sign_in():
    h = notion()
    h.start()
    assert h.authorization_url.startswith("https://api.notion.com/v1/oauth/authorize?")
    assert h.authorization["owner"] == "user"
    event = h.assert_signed_in(h.come_back())
    assert headers_of(h.sent("POST", TOKEN))["authorization"].startswith("Basic ")
    me = headers_of(h.sent("GET", ME))
    assert me["notion-version"] == "2022-06-28"
    assert me["authorization"] == "Bearer ntn_recorded0123456789abcdefghijklmnopqrstuvwx"
    assert event["account"]["provider_account_id"] == "e79a0b74-3aba-4149-9f74-0bb5791a6ee6"
    assert event["account"]["workspace_name"] == "Avo's Workspace"
    assert h.session_user() == {
        "name": "Avo Cado",
        "email": "avo@example.org",
        "image": "https://s3-us-west-2.amazonaws.com/public.notion-static.com/3b34a6b4/avocado.png",
    }


def test_a_workspace_owned_integration_cannot_sign_in():
    bot = {"object": "user", "id": "b", "type": "bot", "bot": {"owner": {"type": "workspace"}}}
    h = notion(me=json_response(bot))
    h.start()
    h.pair.performer.clear()
    assert_failed(h.pair, h.come_back(), because="not owned by a user")
