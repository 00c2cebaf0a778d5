"""Rules of the services mastodon … zoho beyond their sign-in scripts (``test_sign_in``):
issuer-named endpoints, options of their own, the answers that are refused."""

from urllib.parse import urlsplit

import pytest

from sansio_auth.errors import Configuration
from sansio_auth.providers import (
    Discord,
    Mastodon,
    Mattermost,
    Medium,
    NetSuite,
    Nextcloud,
    Osso,
    Strava,
    Webex,
    WeChat,
    WorkOS,
    Yandex,
)
from sansio_auth.providers.services.yandex import yandex_profile
from tests.sansio_auth.driver import written
from tests.sansio_auth.providers.recorded import fixture, fixture_json, json_response
from tests.sansio_auth.providers.service import Harness, settled

CREDENTIALS = {"client_id": "c", "client_secret": "s"}


def urls(provider):
    return provider.authorization.url, provider.token.url, provider.userinfo.url


# -- endpoints under the issuer ({issuer}) ---------------------------------------------------


@pytest.mark.parametrize("issuer", ["https://mastodon.social", "https://mastodon.social/"])
def test_endpoints_are_under_the_issuer(issuer):
    assert urls(Mastodon(issuer=issuer)) == (
        "https://mastodon.social/oauth/authorize",
        "https://mastodon.social/oauth/token",
        "https://mastodon.social/api/v1/accounts/verify_credentials",
    )


def test_the_issuer_may_come_from_env():
    provider = settled(
        Nextcloud,
        {
            "AUTH_NEXTCLOUD_ID": "c",
            "AUTH_NEXTCLOUD_SECRET": "s",
            "AUTH_NEXTCLOUD_ISSUER": "https://cloud.example.com/nextcloud",
        },
    )
    assert urls(provider) == (
        "https://cloud.example.com/nextcloud/apps/oauth2/authorize",
        "https://cloud.example.com/nextcloud/apps/oauth2/api/v1/token",
        "https://cloud.example.com/nextcloud/ocs/v1.php/cloud/users",
    )


def test_an_endpoint_given_in_full_is_kept():
    provider = Mattermost(issuer="https://chat.example.com", token="https://auth.example/token")
    assert urls(provider) == (
        "https://chat.example.com/oauth/authorize",
        "https://auth.example/token",
        "https://chat.example.com/api/v4/users/me",
    )


def test_a_bare_domain_is_not_an_issuer():
    with pytest.raises(Configuration, match="issuer is not an http"):
        settled(Osso(issuer="demo.ossoapp.com", **CREDENTIALS))


def test_the_issuer_named_when_missing_lists_the_endpoints_under_it():
    with pytest.raises(
        Configuration, match=r"AUTH_MATTERMOST_ISSUER\): its authorization, token, userinfo URLs"
    ):
        settled(Mattermost(**CREDENTIALS))


def test_workos_has_a_default_issuer_and_a_connection():
    provider = settled(WorkOS(**CREDENTIALS))
    assert urls(provider) == (
        "https://api.workos.com/sso/authorize",
        "https://api.workos.com/sso/token",
        "https://api.workos.com/sso/profile",
    )
    assert provider.authorization.params == {"connection": ""}
    own = settled(WorkOS(issuer="https://auth.example.com/", connection="conn_1", **CREDENTIALS))
    assert own.authorization.url == "https://auth.example.com/sso/authorize"
    assert own.authorization.params == {"connection": "conn_1"}


# -- options of their own ---------------------------------------------------------------------


def test_netsuite_needs_its_account_and_a_restlet():
    restlet = "https://123-sb1.restlets.api.netsuite.com/app/site/hosting/restlet.nl?script=7"
    with pytest.raises(Configuration, match="needs `account_id`"):
        settled(NetSuite(userinfo=restlet, **CREDENTIALS))
    with pytest.raises(Configuration, match="needs `userinfo`"):
        settled(NetSuite(account_id="123_SB1", **CREDENTIALS))
    provider = settled(NetSuite(account_id="123_SB1", userinfo=restlet, **CREDENTIALS))
    assert urls(provider) == (
        "https://123-sb1.app.netsuite.com/app/login/oauth2/authorize.nl",
        "https://123-sb1.suitetalk.api.netsuite.com/services/rest/auth/oauth2/v1/token",
        restlet,
    )


def test_wechat_platform_types():
    assert WeChat().authorization.url == "https://open.weixin.qq.com/connect/oauth2/authorize"
    website = WeChat(platform_type="WebsiteApp")
    assert website.authorization.url == "https://open.weixin.qq.com/connect/qrconnect"
    assert website.authorization.params == {"scope": "snsapi_login"}
    with pytest.raises(Configuration, match="platform_type"):
        WeChat(platform_type="MiniProgram")


def test_the_wechat_authorization_url_ends_with_wechat_redirect():
    for platform_type in ("OfficialAccount", "WebsiteApp"):
        provider = WeChat(platform_type=platform_type)
        h = Harness.build(provider, env={"AUTH_WECHAT_ID": "wx1", "AUTH_WECHAT_SECRET": "s"})
        h.start()
        assert urlsplit(h.authorization_url).fragment == "wechat_redirect"
        assert h.authorization["appid"] == "wx1"


def test_webex_api_base_url():
    assert urls(Webex(api_base_url="https://webex.example/v1/")) == (
        "https://webex.example/v1/authorize",
        "https://webex.example/v1/access_token",
        "https://webex.example/v1/people/me",
    )


# -- answers ----------------------------------------------------------------------------------


def test_only_medium_takes_201_as_the_token_answer():
    assert Medium().conform_token_status(201) == 200
    assert Medium().conform_token_status(400) == 400
    assert Discord().conform_token_status(201) == 201


def refused(harness):
    """The sign-in ended on the error page, with no session."""
    response = harness.sign_in()
    assert response.location == "http://localhost:3000/auth/error?error=Configuration"
    assert "authjs.session-token" not in written(response)


def test_a_wechat_error_answer_is_no_user():
    h = Harness.build(WeChat, env={"AUTH_WECHAT_ID": "wx1", "AUTH_WECHAT_SECRET": "s"})
    token = "https://api.weixin.qq.com/sns/oauth2/access_token"
    h.route("POST", token, fixture("wechat/token.json"))
    h.route(
        "GET",
        "https://api.weixin.qq.com/sns/userinfo",
        json_response({"errcode": 40003, "errmsg": "invalid openid"}),
    )
    refused(h)


def test_nextcloud_needs_the_user_id_of_the_token():
    token = {k: v for k, v in fixture_json("nextcloud/token.json").items() if k != "user_id"}
    h = Harness.build(Nextcloud(issuer="https://cloud.example.com", **CREDENTIALS))
    h.route("POST", "https://cloud.example.com/apps/oauth2/api/v1/token", json_response(token))
    refused(h)


# -- profiles ---------------------------------------------------------------------------------


def test_mattermost_names_a_user_without_username_by_first_and_last_name():
    user = fixture_json("mattermost/user.json")
    del user["username"]
    assert Mattermost().profile(user)["name"] == "Sam Lee"


def test_strava_joins_first_and_last_name():
    athlete = {"id": 1, "firstname": "Marianne", "lastname": None, "profile": "p"}
    assert Strava().profile(athlete) == {"id": "1", "name": "Marianne", "email": None, "image": "p"}


AVATAR = "https://avatars.yandex.net/get-yapic/131652443/islands-200"


@pytest.mark.parametrize(
    ("changes", "name", "email", "image"),
    [
        ({}, "Vasya", "test@yandex.ru", AVATAR),
        ({"is_avatar_empty": True}, "Vasya", "test@yandex.ru", None),
        (
            {"display_name": None, "default_email": None, "default_avatar_id": None},
            "Вася Пупкин",
            "test@yandex.ru",
            None,
        ),
        (
            {"display_name": None, "real_name": None, "default_email": None, "emails": []},
            "Вася",
            None,
            AVATAR,
        ),
    ],
)
def test_yandex_profile(changes, name, email, image):
    info = {**fixture_json("yandex/info.json"), **changes}
    user = {"id": "1000034426", "name": name, "email": email, "image": image}
    assert yandex_profile(info) == user
    assert Yandex().profile is yandex_profile
