"""Configuration: the options table in snake_case, spec defaults, env inference, start-up errors."""

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import (
    AuthConfig,
    Callbacks,
    Events,
    JWTOptions,
    Logger,
    Pages,
    SessionOptions,
    Theme,
    skip_csrf_check,
)
from sansio_auth.errors import (
    Configuration,
    InvalidEndpoints,
    MissingAdapter,
    MissingAdapterMethods,
    MissingAuthorize,
    MissingSecretError,
    UnsupportedStrategy,
    UntrustedHost,
)
from sansio_auth.providers import Credentials, CredentialsProvider, GitHub
from sansio_auth.settings import DATABASE_METHODS, resolve
from tests.sansio_auth.driver import SECRET, AuthPair


def settings(env=None, **options):
    options.setdefault("secret", SECRET)
    options.setdefault("trust_host", True)
    return resolve(AuthConfig(**options), env or {})


def authorize(credentials):
    return None


class FullAdapter:
    """An adapter object with every database-session method."""

    def __getattr__(self, name):
        if name in DATABASE_METHODS:
            return lambda *args: None
        raise AttributeError(name)


# -- the options table -----------------------------------------------------------------------


def test_every_option_of_the_spec_exists_in_snake_case():
    beyond_authjs = {"deadlines", "rate_limits", "languages", "translations"}
    assert {f.name for f in dataclasses.fields(AuthConfig)} - beyond_authjs == {
        "providers",
        "adapter",
        "base_path",
        "callbacks",
        "cookies",
        "debug",
        "events",
        "experimental",
        "jwt",
        "logger",
        "pages",
        "redirect_proxy_url",
        "secret",
        "session",
        "single_flight",  # not in Auth.js: refreshes across processes
        "skip_csrf_check",
        "theme",
        "trust_host",
        "use_secure_cookies",
        "two_factor",  # ours (docs/accounts.md), not Auth.js's
    }
    assert {f.name for f in dataclasses.fields(SessionOptions)} == {
        "strategy",
        "max_age",
        "update_age",
        "generate_session_token",
        "revocation",  # ours (revocable JWT sessions), not Auth.js's
        "revocation_cache_ttl",
        "fresh_age",  # ours (sensitive actions need a recent sign-in)
        "track_ip_address",  # ours (the user's list of sessions)
    }
    assert {f.name for f in dataclasses.fields(Pages)} == {
        "sign_in",
        "sign_out",
        "error",
        "verify_request",
        "new_user",
        "security",  # ours (the user's sessions and accounts)
    }
    assert {f.name for f in dataclasses.fields(Theme)} == {
        "color_scheme",
        "logo",
        "brand_color",
        "button_text",
    }
    assert {f.name for f in dataclasses.fields(Logger)} == {"error", "warn", "debug"}


def test_defaults():
    s = settings()
    assert s.providers == ()
    assert s.adapter is None
    assert s.base_path == "/auth"
    assert s.callbacks == Callbacks()
    assert s.debug is False
    assert s.events == Events()
    assert s.jwt == JWTOptions()
    assert s.logger == Logger()
    assert s.pages == Pages()
    assert s.redirect_proxy_url is None
    assert s.secrets == (SECRET,)
    assert s.strategy == "jwt"
    assert s.session.max_age == 2592000
    assert s.session.update_age == 86400
    assert s.session.generate_session_token is None
    assert s.jwt_max_age == 2592000
    assert s.skip_csrf is False
    assert s.theme == Theme(color_scheme="auto", logo="", brand_color="", button_text="")
    assert s.secure_cookies is None  # decided per request by its scheme
    assert s.warnings == ()


def test_every_option_set_at_once():
    def fn(**kwargs):
        return None

    provider = Credentials(authorize=authorize)
    s = settings(
        providers=[provider],
        adapter=FullAdapter(),
        base_path="/api/auth/",
        callbacks=Callbacks(sign_in=fn, redirect=fn, session=fn, jwt=fn, authorized=fn),
        cookies={"session_token": {"name": "sid"}},
        debug=True,
        events=Events(sign_in=fn, sign_out=fn, create_user=fn, update_user=fn,
                      link_account=fn, session=fn),
        experimental={"enable_web_authn": False},
        jwt=JWTOptions(max_age=60, encode=fn, decode=fn),
        logger=Logger(error=fn, warn=fn, debug=fn),
        pages=Pages(sign_in="/login", sign_out="/bye", error="/oops", verify_request="/mail",
                    new_user="/welcome"),
        redirect_proxy_url="https://proxy.example.com/api/auth",
        secret=["new" * 11, "old" * 11],
        session=SessionOptions(strategy="jwt", max_age=3600, update_age=0,
                               generate_session_token=fn),
        skip_csrf_check=skip_csrf_check,
        theme=Theme(color_scheme="dark", logo="/logo.png", brand_color="#f00",
                    button_text="#fff"),
        trust_host=True,
        use_secure_cookies=True,
    )  # fmt: skip
    assert s.providers == (provider,)
    assert s.base_path == "/api/auth"
    assert s.cookies.session_token.name == "sid"
    assert s.strategy == "jwt"
    assert s.jwt_max_age == 60
    assert s.session.max_age == 3600
    assert s.secrets == ("new" * 11, "old" * 11)
    assert s.secure_cookies is True
    assert s.skip_csrf is True
    assert s.pages.new_user == "/welcome"
    assert s.theme.color_scheme == "dark"
    assert s.redirect_proxy_url == "https://proxy.example.com/api/auth"
    assert s.warnings == ("debug-enabled", "csrf-disabled")


def test_nested_options_take_mappings():
    s = settings(
        session={"max_age": 3600, "update_age": 60},
        jwt={"max_age": 120},
        pages={"sign_in": "/login"},
        theme={"brand_color": "#123456"},
        callbacks={"jwt": authorize},
        events={"sign_in": authorize},
        logger={"warn": authorize},
    )
    assert (s.session.max_age, s.session.update_age, s.jwt_max_age) == (3600, 60, 120)
    assert s.pages.sign_in == "/login"
    assert s.theme.brand_color == "#123456"
    assert s.callbacks.jwt is authorize
    assert s.events.sign_in is authorize
    assert s.logger.warn is authorize


@pytest.mark.parametrize(
    ("option", "value", "named"),
    [
        ("session", {"maxAge": 1}, "maxAge"),
        ("jwt", {"max_agee": 1}, "max_agee"),
        ("pages", {"signIn": "/x"}, "signIn"),
        ("theme", {"colorScheme": "dark"}, "colorScheme"),
        ("callbacks", {"signIn": authorize}, "signIn"),
        ("events", {"signin": authorize}, "signin"),
        ("logger", {"info": authorize}, "info"),
        ("cookies", {"sessionToken": {}}, "sessionToken"),
        ("experimental", {"enableWebAuthn": True}, "enableWebAuthn"),
    ],
)
def test_unknown_keys_are_named(option, value, named):
    with pytest.raises(Configuration, match=named):
        settings(**{option: value})


@pytest.mark.parametrize(
    "options",
    [
        {"session": {"max_age": -1}},
        {"session": {"update_age": "daily"}},
        {"session": {"max_age": True}},
        {"session": {"strategy": "cookie"}},
        {"jwt": {"max_age": "soon"}},
        {"jwt": {"max_age": -5}},
        {"base_path": "auth"},
        {"base_path": "/"},
        {"base_path": "/auth?x"},
        {"secret": ["ok", 3]},
        {"providers": [42]},
        {"providers": [{"type": "carrier-pigeon", "id": "p"}]},
        {"session": 3},
    ],
)
def test_invalid_values_are_configuration_errors(options):
    with pytest.raises(Configuration):
        settings(**options)


def test_duplicate_provider_ids():
    provider = Credentials(authorize=authorize)
    with pytest.raises(Configuration, match="credentials"):
        settings(providers=[provider, provider])


def test_providers_as_mappings_and_factories():
    s = settings(
        providers=[
            {"type": "credentials", "id": "pw", "authorize": authorize},
            lambda: Credentials(id="other", authorize=authorize),
        ]
    )
    assert [p.id for p in s.providers] == ["pw", "other"]
    assert all(isinstance(p, CredentialsProvider) for p in s.providers)
    assert s.providers_by_id["pw"].name == "Credentials"


def test_a_function_returning_a_provider_mapping_is_a_provider():
    """Auth.js's function providers (``providers: [GitHub]`` or ``() => ({...})``), with the
    object's ``options`` deep-merged over the rest as Auth.js does."""

    def acme():
        return {
            "id": "acme",
            "type": "oauth",
            "issuer": "https://acme.example",
            "client_id": "id",
            "client_secret": "secret",
            "authorization": {"params": {"claims": {"id_token": {"email": {"essential": True}}}}},
            "options": {
                "authorization": {"params": {"claims": {"id_token": {"name": None}}}},
                "client_id": "from-options",
            },
        }

    s = settings({"AUTH_GITHUB_ID": "i", "AUTH_GITHUB_SECRET": "s"}, providers=[acme, GitHub])
    provider = s.providers_by_id["acme"]
    assert provider.client_id == "from-options"
    claims = provider.authorization.params["claims"]
    assert claims == {"id_token": {"email": {"essential": True}, "name": None}}
    assert s.providers_by_id["github"].name == "GitHub"


@pytest.mark.parametrize(
    ("provider", "error"),
    [
        (lambda: {"id": "x", "type": "oauth", "client_id": "i", "client_secret": "s"},
         InvalidEndpoints),
        (lambda: {"id": "pw", "type": "credentials"}, MissingAuthorize),
        (lambda: 42, Configuration),
        (lambda: {"id": "x", "type": "saml"}, Configuration),
    ],
)  # fmt: skip
def test_function_providers_are_refused_with_auth_js_s_types(provider, error):
    with pytest.raises(error) as caught:
        settings(providers=[provider])
    assert type(caught.value) is error


# -- named errors at start-up --------------------------------------------------------------


def test_missing_secret():
    with pytest.raises(MissingSecretError) as caught:
        resolve(AuthConfig(trust_host=True), {})
    assert caught.value.type == "MissingSecret"
    with pytest.raises(MissingSecretError):
        resolve(AuthConfig(trust_host=True, secret=""), {"AUTH_SECRET": ""})
    with pytest.raises(MissingSecretError):
        resolve(AuthConfig(trust_host=True, secret=[]), {})


PRODUCTION_ENVS = [
    {"AUTH_URL": "https://app.example"},
    {"NEXTAUTH_URL": "https://app.example/api/auth"},
    {"ENV": "production"},
    {"PYTHON_ENV": "Production"},
]


@pytest.mark.parametrize("env", PRODUCTION_ENVS)
@pytest.mark.parametrize("secret", ["...", "x" * 31, [SECRET, "short-old-secret"]])
def test_a_short_secret_is_refused_in_production(env, secret):
    with pytest.raises(MissingSecretError, match="shorter than 32 characters") as caught:
        resolve(AuthConfig(trust_host=True, secret=secret), env)
    assert caught.value.type == "MissingSecret"
    assert "..." not in str(caught.value)  # never the secret itself
    with pytest.raises(MissingSecretError):  # from the environment too
        resolve(AuthConfig(trust_host=True), {**env, "AUTH_SECRET": "x" * 31})


@pytest.mark.parametrize("env", [{}, {"AUTH_URL": "http://localhost:3000"}, {"ENV": "development"}])
def test_a_short_secret_is_a_warning_in_development(env):
    assert settings(env, secret="...").warnings == ("short-secret",)
    assert settings(env, secret="x" * 32).warnings == ()
    assert settings({**env, "AUTH_SECRET": "short"}, secret=None).warnings == ("short-secret",)


def test_a_long_secret_passes_in_production():
    for env in PRODUCTION_ENVS:
        assert settings(env, secret="x" * 32).warnings == ()


def test_untrusted_host():
    with pytest.raises(UntrustedHost):
        resolve(AuthConfig(secret=SECRET), {})
    with pytest.raises(UntrustedHost):
        resolve(AuthConfig(secret=SECRET, trust_host=False), {"AUTH_TRUST_HOST": "true"})


def test_credentials_with_database_sessions_is_unsupported():
    with pytest.raises(UnsupportedStrategy):
        settings(
            providers=[Credentials(authorize=authorize)],
            adapter=FullAdapter(),
            session={"strategy": "database"},
        )
    with pytest.raises(UnsupportedStrategy):  # an adapter makes "database" the default
        settings(providers=[Credentials(authorize=authorize)], adapter=FullAdapter())
    s = settings(
        providers=[Credentials(authorize=authorize)],
        adapter=FullAdapter(),
        session={"strategy": "jwt"},
    )
    assert s.strategy == "jwt"


def test_missing_authorize():
    with pytest.raises(MissingAuthorize):
        settings(providers=[Credentials()])


def test_database_strategy_needs_an_adapter_with_its_methods():
    with pytest.raises(MissingAdapter):
        settings(session={"strategy": "database"})

    class Partial:
        def get_user(self):
            return None

    with pytest.raises(MissingAdapterMethods, match="create_session"):
        settings(adapter=Partial())
    assert settings(adapter=FullAdapter()).strategy == "database"


# -- environment -------------------------------------------------------------------------------


def env_settings(env, **options):
    options.setdefault("trust_host", True)
    return resolve(AuthConfig(**options), env)


def test_auth_secret_from_env():
    assert env_settings({"AUTH_SECRET": "s"}).secrets == ("s",)
    assert env_settings({"NEXTAUTH_SECRET": "legacy"}).secrets == ("legacy",)
    assert env_settings({"AUTH_SECRET": "s", "NEXTAUTH_SECRET": "legacy"}).secrets == ("s",)
    assert env_settings({"AUTH_SECRET": "env"}, secret="config").secrets == ("config",)


def test_numbered_secrets_order_is_auth_js():
    env = {"AUTH_SECRET": "s", "AUTH_SECRET_1": "one", "AUTH_SECRET_2": "two", "AUTH_SECRET_3": "3"}
    assert env_settings(env).secrets == ("3", "two", "one", "s")
    assert env_settings({"AUTH_SECRET": "s", "AUTH_SECRET_2": "two"}).secrets == ("two", "s")
    assert env_settings({"AUTH_SECRET_1": "one"}).secrets == ("one",)


def test_auth_url_sets_base_path_and_origin():
    s = env_settings({"AUTH_SECRET": SECRET, "AUTH_URL": "https://Example.com/api/auth/"})
    assert s.base_path == "/api/auth"
    assert s.url_origin == "https://example.com"
    assert s.secure_cookies is True
    s = env_settings({"AUTH_SECRET": "s", "NEXTAUTH_URL": "http://example.com:8080/x"})
    assert (s.base_path, s.url_origin) == ("/x", "http://example.com:8080")
    assert s.secure_cookies is False
    s = env_settings(
        {"AUTH_SECRET": SECRET, "AUTH_URL": "https://a.com", "NEXTAUTH_URL": "http://b"}
    )
    assert s.url_origin == "https://a.com"
    assert s.base_path == "/auth"  # a root AUTH_URL keeps the default


def test_configured_base_path_wins_over_auth_url():
    s = env_settings({"AUTH_SECRET": SECRET, "AUTH_URL": "https://a.com/api/auth"}, base_path="/b")
    assert s.base_path == "/b"
    assert s.warnings == ("env-url-basepath-mismatch",)


@pytest.mark.parametrize(
    ("auth_url", "base_path", "warning"),
    [
        ("https://a.com/api/auth", "/api/auth", "env-url-basepath-redundant"),
        ("https://a.com/api/auth/", "/api/auth/", "env-url-basepath-redundant"),
        ("https://a.com/api/auth/", "/api/auth", "env-url-basepath-mismatch"),  # as Auth.js
        ("https://a.com/api/auth", "/api/auth/", "env-url-basepath-mismatch"),
        ("https://a.com/api/auth", "/auth", "env-url-basepath-mismatch"),
        ("https://a.com/app", "/app/auth", "env-url-basepath-mismatch"),
        ("https://a.com/api/auth", None, None),
        ("https://a.com", "/auth", None),
        ("https://a.com/", "/api/auth", None),
    ],
)
def test_auth_url_and_base_path_warnings(auth_url, base_path, warning):
    """Auth.js's ``env-url-basepath-redundant`` / ``-mismatch``: ``AUTH_URL`` has a path and
    ``base_path`` is set too (a root ``AUTH_URL`` is only an origin: no warning)."""
    s = env_settings({"AUTH_SECRET": SECRET, "AUTH_URL": auth_url}, base_path=base_path)
    assert s.warnings == (() if warning is None else (warning,))


@given(
    segments=st.lists(st.text(alphabet="abz-", min_size=1, max_size=4), min_size=1, max_size=3),
    slash_url=st.booleans(),
    slash_base=st.booleans(),
)
def test_only_the_exact_path_is_redundant(segments, slash_url, slash_base):
    path = "/" + "/".join(segments)
    url = "https://a.com" + path + ("/" if slash_url else "")
    base = path + ("/" if slash_base else "")
    s = env_settings({"AUTH_SECRET": SECRET, "AUTH_URL": url}, base_path=base)
    expected = "redundant" if slash_url == slash_base else "mismatch"
    assert s.warnings == (f"env-url-basepath-{expected}",)
    assert s.base_path == path  # base_path wins, without its trailing slash


def test_auth_url_means_the_host_need_not_be_trusted():
    s = resolve(AuthConfig(secret=SECRET), {"AUTH_URL": "https://a.com"})
    assert s.url_origin == "https://a.com"


def test_bad_auth_url():
    with pytest.raises(Configuration, match="AUTH_URL"):
        env_settings({"AUTH_SECRET": "s", "AUTH_URL": "ftp://a.com"})


@pytest.mark.parametrize("value", ["true", "TRUE", "1", "yes", "on", " true "])
def test_auth_trust_host_true(value):
    assert resolve(AuthConfig(secret="s"), {"AUTH_TRUST_HOST": value}).trust_host


@pytest.mark.parametrize("value", ["false", "False", "0", "no", "off", ""])
def test_auth_trust_host_false(value):
    with pytest.raises(UntrustedHost):
        resolve(AuthConfig(secret="s"), {"AUTH_TRUST_HOST": value})


def test_auth_trust_host_garbage():
    with pytest.raises(Configuration, match="AUTH_TRUST_HOST"):
        resolve(AuthConfig(secret="s"), {"AUTH_TRUST_HOST": "maybe"})


def test_configured_trust_host_wins_over_env():
    assert resolve(AuthConfig(secret="s", trust_host=True), {"AUTH_TRUST_HOST": "0"}).trust_host


def test_redirect_proxy_url_from_env():
    env = {"AUTH_REDIRECT_PROXY_URL": "https://proxy.example.com/auth"}
    assert env_settings(env, secret="s").redirect_proxy_url == "https://proxy.example.com/auth"
    configured = env_settings(env, secret="s", redirect_proxy_url="https://mine.example.com")
    assert configured.redirect_proxy_url == "https://mine.example.com"


# -- secure cookies by scheme, through the engine ----------------------------------------------


def session_cookie_names(pair):
    return {c.name for c in pair.browser.get("/auth/csrf").cookies}


def test_http_request_gets_plain_cookie_names():
    pair = AuthPair.build()
    assert session_cookie_names(pair) == {"authjs.csrf-token"}


def test_https_request_gets_prefixed_secure_cookies():
    pair = AuthPair.build(origin="https://example.com")
    response = pair.browser.get("/auth/csrf")
    assert [c.name for c in response.cookies] == ["__Host-authjs.csrf-token"]
    assert response.cookies[0].options.secure


def test_forwarded_proto_decides_the_scheme_when_the_host_is_trusted():
    pair = AuthPair.build()
    response = pair.browser.get("/auth/csrf", headers={"x-forwarded-proto": "https"})
    assert [c.name for c in response.cookies] == ["__Host-authjs.csrf-token"]


def test_auth_url_scheme_wins_over_the_request():
    pair = AuthPair.build(env={"AUTH_URL": "https://public.example.com/auth"}, trust_host=None)
    assert session_cookie_names(pair) == {"__Host-authjs.csrf-token"}


def test_use_secure_cookies_overrides_the_scheme():
    pair = AuthPair.build(origin="https://example.com", use_secure_cookies=False)
    assert session_cookie_names(pair) == {"authjs.csrf-token"}
    pair = AuthPair.build(use_secure_cookies=True)
    assert session_cookie_names(pair) == {"__Host-authjs.csrf-token"}
