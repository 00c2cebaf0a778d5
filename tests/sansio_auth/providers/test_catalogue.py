"""Every built-in provider: builds, is complete, takes its settings from env, has a button."""

import html
import re
from pathlib import Path

import pytest

from sansio_auth import providers as exported
from sansio_auth.errors import Configuration
from sansio_auth.providers import BUILTIN_PROVIDERS, OAuthProvider, OIDCProvider
from sansio_auth.providers.builtin import ISSUER_REQUIRED, SERVICES
from tests.sansio_auth.driver import ORIGIN, AuthPair
from tools.catalogue import BUILTIN, builtin_source

IDS = sorted(row.id for row in SERVICES)
FACTORIES = [BUILTIN_PROVIDERS[provider_id] for provider_id in IDS]
AUTH_JS_OAUTH_IDS = {
    "42-school", "apple", "asgardeo", "atlassian", "auth0", "authentik", "azure-ad-b2c",
    "azure-ad", "azure-devops", "bankid-no", "battlenet", "beyondidentity", "bitbucket", "box",
    "boxyhq-saml", "bungie", "click-up", "cognito", "coinbase", "concept2", "descope", "discord",
    "dribbble", "dropbox", "duende-identity-server6", "eventbrite", "eveonline", "facebook",
    "faceit", "figma", "foursquare", "freshbooks", "frontegg", "fusionauth", "github", "gitlab",
    "google", "hubspot", "huggingface", "identity-server4", "instagram", "kakao", "keycloak",
    "kinde", "line", "linkedin", "logto", "mailchimp", "mailru", "mastodon", "mattermost",
    "medium", "microsoft-entra-id", "naver", "netlify", "netsuite", "nextcloud", "notion", "okta",
    "onelogin", "hydra", "osso", "osu", "passage", "patreon", "ping-id", "pinterest", "pipedrive",
    "reddit", "roblox", "salesforce", "simplelogin", "slack", "spotify", "strava", "threads",
    "tiktok", "todoist", "trakt", "twitch", "twitter", "united-effects", "vipps", "vk", "webex",
    "wechat", "wikimedia", "wordpress", "workos", "yandex", "zitadel", "zoho", "zoom",
}  # fmt: skip
"""Auth.js 0.41.3's OAuth/OIDC provider ids (``@auth/core/providers/*``; ``ory-hydra``'s is
``hydra``)."""
AUTH_JS_OTHER_IDS = {
    "email": "Email", "nodemailer": "Nodemailer", "resend": "Resend", "sendgrid": "SendGrid",
    "postmark": "Postmark", "mailgun": "Mailgun", "forwardemail": "ForwardEmail",
    "loops": "Loops", "credentials": "Credentials", "webauthn": "WebAuthn", "passkey": "Passkey",
}  # fmt: skip
"""Auth.js's e-mail and other provider ids, each with its factory here."""
AUTH_JS_NAMES = {
    "apple": "Apple",
    "microsoft-entra-id": "MicrosoftEntraID",
    "gitlab": "GitLab",
    "auth0": "Auth0",
    "keycloak": "Keycloak",
    "linkedin": "LinkedIn",
    "github": "GitHub",
    "zitadel": "ZITADEL",
}


OWN_OPTIONS = {
    "netsuite": {
        "account_id": "TSTDRV1234567",
        "userinfo": "https://tstdrv1234567.restlets.api.netsuite.com/app/site/hosting/restlet.nl",
    },
}
"""What a service needs that neither env nor a default gives (NetSuite's account and RESTlet)."""


def built(provider_id, **overrides):
    """The provider with the options of its own it needs, and ``overrides``."""
    return BUILTIN_PROVIDERS[provider_id](**OWN_OPTIONS.get(provider_id, {}), **overrides)


def env_for(provider_id, *, issuer=True):
    prefix = "AUTH_" + provider_id.upper().replace("-", "_")
    env = {f"{prefix}_ID": f"{provider_id}-client", f"{prefix}_SECRET": f"{provider_id}-secret"}
    env[f"{prefix}_KEY"] = f"{provider_id}-api-key"  # for services that need an API key too
    if issuer:
        env[f"{prefix}_ISSUER"] = f"https://{provider_id}.idp.example/tenant"
    return env


def test_every_auth_js_provider_id_is_built_in():
    assert len(AUTH_JS_OAUTH_IDS) + len(AUTH_JS_OTHER_IDS) == 104
    assert set(IDS) == AUTH_JS_OAUTH_IDS
    assert set(BUILTIN_PROVIDERS) == AUTH_JS_OAUTH_IDS | {"ory-hydra"}  # Auth.js's module name
    for provider_id, factory in AUTH_JS_OTHER_IDS.items():
        assert getattr(exported, factory)().id == provider_id
        assert factory in exported.__all__


def test_the_docs_table_lists_every_auth_js_provider_id():
    table = (Path(__file__).parents[3] / "docs" / "providers.md").read_text()
    listed = set(re.findall(r"^\| ([a-z0-9-]+) \| `", table, re.M))
    assert listed == AUTH_JS_OAUTH_IDS | set(AUTH_JS_OTHER_IDS)


@pytest.mark.parametrize("provider_id", IDS)
def test_each_provider_builds_complete(provider_id):
    factory = BUILTIN_PROVIDERS[provider_id]
    provider = factory()
    assert isinstance(provider, OAuthProvider)
    assert provider.id == provider_id
    assert provider.name
    assert provider.type == ("oidc" if isinstance(provider, OIDCProvider) else "oauth")
    assert provider.checks
    assert provider.style is not None
    assert provider.style.logo == f"https://authjs.dev/img/providers/{provider_id}.svg"
    issuer = provider.issuer or getattr(type(provider), "default_issuer", None)
    if provider_id in ISSUER_REQUIRED:
        assert issuer is None
    elif issuer is None:
        assert provider.authorization.url
        assert provider.token.url
        assert provider.userinfo.url or provider_id in OWN_OPTIONS
    if provider.profile is not None:
        assert callable(provider.profile)


@pytest.mark.parametrize("provider_id", IDS)
def test_exported_under_its_auth_js_name(provider_id):
    name = AUTH_JS_NAMES.get(provider_id)
    if name is not None:
        assert getattr(exported, name) is BUILTIN_PROVIDERS[provider_id]
    assert BUILTIN_PROVIDERS[provider_id].__name__ in exported.__all__


def test_other_auth_js_names_give_the_same_factory():
    for row in SERVICES:
        for other in row.also_ids:
            assert BUILTIN_PROVIDERS[other] is BUILTIN_PROVIDERS[row.id]
            assert BUILTIN_PROVIDERS[other]().id == row.id
    assert BUILTIN_PROVIDERS["ory-hydra"]().id == "hydra"


@pytest.mark.parametrize("provider_id", IDS)
def test_as_a_value_with_credentials_and_issuer_from_env(provider_id):
    value = built(provider_id) if provider_id in OWN_OPTIONS else BUILTIN_PROVIDERS[provider_id]
    pair = AuthPair.build(providers=[value], env=env_for(provider_id))
    provider = pair.engine.settings.providers_by_id[provider_id]
    assert provider.client_id == f"{provider_id}-client"
    assert provider.client_secret == f"{provider_id}-secret"
    fixed_issuer = BUILTIN_PROVIDERS[provider_id]().issuer  # a service's own issuer stays
    assert provider.issuer == (fixed_issuer or f"https://{provider_id}.idp.example/tenant")


@pytest.mark.parametrize("provider_id", IDS)
def test_called_with_overrides(provider_id):
    overrides = {
        "client_id": "from-code",
        "allow_dangerous_email_account_linking": True,
        "authorization_params": {"prompt": "login"},
    }
    if provider_id in ISSUER_REQUIRED:
        overrides["issuer"] = "https://idp.example/from-code"
    provider = built(provider_id, **overrides)
    pair = AuthPair.build(providers=[provider], env=env_for(provider_id))
    provider = pair.engine.settings.providers_by_id[provider_id]
    assert provider.client_id == "from-code"
    assert provider.client_secret == f"{provider_id}-secret"
    assert provider.allow_dangerous_email_account_linking
    if provider_id in ISSUER_REQUIRED:
        assert provider.issuer == "https://idp.example/from-code"


@pytest.mark.parametrize("provider_id", IDS)
def test_unknown_options_are_named(provider_id):
    with pytest.raises(Configuration, match="clientId"):
        BUILTIN_PROVIDERS[provider_id](clientId="camelCase")


@pytest.mark.parametrize("provider_id", sorted(ISSUER_REQUIRED))
def test_missing_issuer_names_the_variable(provider_id):
    prefix = "AUTH_" + provider_id.upper().replace("-", "_")
    with pytest.raises(Configuration, match=f"{prefix}_ISSUER"):
        AuthPair.build(
            providers=[BUILTIN_PROVIDERS[provider_id]], env=env_for(provider_id, issuer=False)
        )


def test_sign_in_page_shows_every_button_with_its_style():
    env = {}
    for provider_id in IDS:
        env.update(env_for(provider_id))
    pair = AuthPair.build(providers=[built(provider_id) for provider_id in IDS], env=env)
    page = pair.browser.get("/auth/signin").body.decode()
    forms = re.findall(r'<form class="provider" action="([^"]+)" method="POST">(.*?)</form>', page)
    by_url = {html.unescape(url): body for url, body in forms}
    assert len(by_url) == len(IDS)
    for provider_id, factory in zip(IDS, FACTORIES, strict=True):
        provider = factory()
        body = by_url[f"{ORIGIN}/auth/signin/{provider_id}"]
        assert 'name="csrfToken"' in body
        assert f"Sign in with {html.escape(provider.name)}" in body
        assert provider.style is not None
        assert f'src="{provider.style.logo}"' in body
        colour = provider.style.brand_color or provider.style.bg
        if colour:
            assert f"--provider-bg:{colour}" in html.unescape(body)
        if provider.style.text:
            assert f"--provider-text:{provider.style.text}" in html.unescape(body)


def test_builtin_py_is_generated_from_the_service_rows():
    assert BUILTIN.read_text() == builtin_source(), "run `make docs`"


def test_the_docs_list_every_provider():
    table = (Path(__file__).parents[3] / "docs" / "providers.md").read_text()
    for provider_id, factory in zip(IDS, FACTORIES, strict=True):
        assert f"| {provider_id} | `{factory.__name__}`" in table
