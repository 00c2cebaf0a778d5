"""The row format: profile maps, defaults from a row, the env prefix, and every hook slot."""

import dataclasses

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth.events import OutboundRequest
from sansio_auth.providers import Hooks, OAuthProvider, ProviderStyle
from sansio_auth.providers._base import env_prefix
from sansio_auth.providers.builtin import SERVICES
from sansio_auth.providers.service import Join, ProfileMap, Service, builtin, sorted_services
from tests.sansio_auth.driver import query_of
from tests.sansio_auth.providers.recorded import fixture, form_of, headers_of
from tests.sansio_auth.providers.service import Harness

ENV = {"AUTH_ACME_ID_ID": "acme-client", "AUTH_ACME_ID_SECRET": "acme-secret"}


def row(**changes):
    values = {
        "id": "acme-id",
        "name": "Acme ID",
        "type": "oauth",
        "factory": "AcmeID",
        "authorization": "https://id.acme.example/authorize",
        "token": "https://id.acme.example/token",
        "userinfo": "https://api.acme.example/me",
        "profile": ProfileMap(id="id", name="name"),
        "setup": "https://developer.acme.example/apps",
    }
    return Service(**{**values, **changes})


def record(service):
    @builtin(service)
    class AcmeIDProvider(OAuthProvider):
        pass

    return AcmeIDProvider


def test_a_profile_map_takes_the_first_non_empty_path():
    mapping = ProfileMap(
        id="user.id",
        name=(Join("user.first", "user.last"), "user.login"),
        email=("user.email", "user.emails.0.value"),
        image="user.avatars.1.url",
    )
    profile = {
        "user": {
            "id": 42,
            "first": " Ada ",
            "last": "",
            "login": "ada",
            "email": "",
            "emails": [{"value": "ada@example.com"}],
            "avatars": [{"url": "small"}, {"url": "large"}],
        }
    }
    assert mapping(profile) == {
        "id": "42",
        "name": "Ada",
        "email": "ada@example.com",
        "image": "large",
    }
    nameless = {"user": {"id": "7", "first": None, "last": " ", "avatars": []}}
    assert mapping(nameless) == {"id": "7", "name": None, "email": None, "image": None}


def test_a_profile_without_an_id_is_refused_naming_the_paths():
    with pytest.raises(ValueError, match=r"no data\.id or id"):
        ProfileMap(id=("data.id", "id"))({"data": {"id": ""}})


@given(
    st.recursive(
        st.none() | st.text() | st.integers(), lambda c: st.lists(c) | st.dictionaries(st.text(), c)
    )
)
def test_a_profile_map_never_fails_on_odd_shapes_but_for_the_id(profile):
    mapping = ProfileMap(id="a.0.b", name=(Join("a.1", "b"), "c.d"), image="a.b.c")
    has_id = isinstance(profile, dict) and isinstance(profile.get("a"), list)
    try:
        user = mapping(profile)
    except ValueError as err:
        refused = str(err)
    else:
        refused = ""
        assert user["id"] is not None
        assert has_id
    assert refused in ("", "the profile has no a.0.b")


@pytest.mark.parametrize(
    ("provider_id", "prefix"),
    [
        ("github", "AUTH_GITHUB_"),
        ("azure-ad-b2c", "AUTH_AZURE_AD_B2C_"),
        ("42-school", "AUTH_42_SCHOOL_"),
    ],
)
def test_the_env_prefix(provider_id, prefix):
    assert env_prefix(provider_id) == prefix
    assert row(id=provider_id).env_prefix == prefix


def test_a_row_gives_the_provider_keys():
    service = row(
        scope="read",
        params={"prompt": "consent"},
        token_params={"audience": "api"},
        userinfo_params={"fields": "id,name"},
        checks=("state",),
        client_auth="client_secret_post",
        id_token_alg="HS256",
        userinfo_alg="RS256",
        style=ProviderStyle(bg="#000"),
    )
    provider = record(service).from_mapping({})
    assert provider.authorization.url == "https://id.acme.example/authorize"
    assert provider.authorization.params == {"scope": "read", "prompt": "consent"}
    assert provider.token.params == {"audience": "api"}
    assert provider.userinfo.params == {"fields": "id,name"}
    assert provider.checks == ("state",)
    assert provider.client.token_endpoint_auth_method == "client_secret_post"
    assert provider.client.id_token_signed_response_alg == "HS256"
    assert provider.client.userinfo_signed_response_alg == "RS256"
    assert provider.style == ProviderStyle(
        logo="https://authjs.dev/img/providers/acme-id.svg", bg="#000"
    )
    assert provider.profile is service.profile


def test_record_names():
    assert row().record_name == "AcmeIDProvider"
    assert row(factory="ZITADEL").record_name == "ZitadelProvider"


def test_two_rows_cannot_share_an_id_or_a_name():
    with pytest.raises(ValueError, match="'acme-id' is also acme-id's"):
        sorted_services([row(), row()])
    with pytest.raises(ValueError, match="'AcmeID' is also acme-id's"):
        sorted_services([row(), row(id="other")])
    assert [s.id for s in SERVICES] == sorted(s.id for s in SERVICES)


def test_an_unknown_hook_slot_is_refused_by_name():
    with pytest.raises(TypeError, match="token_respons"):
        Hooks(token_respons=lambda body: body)
    assert {f.name for f in dataclasses.fields(Hooks)} == {
        "options",
        "authorization_url",
        "token_request",
        "token_response",
        "token_error",
        "token_status",
        "userinfo",
        "complete_profile",
        "discovered_issuer",
        "id_token_issuer",
    }


def test_the_hooks_shape_the_requests_and_the_profile():
    """Each slot is used where its docstring says: a sign-in through all of them."""

    def options(values):
        region = values.pop("region", None)
        if region is not None:
            values["authorization"] = {"url": f"https://{region}.id.acme.example/authorize"}
        return values

    def authorization_url(provider, url):
        return f"{url}&client_key={provider.client_id}#acme"

    def token_request(provider, request):
        form = {**form_of(request), "client_key": provider.client_id}
        del form["code_verifier"]
        return msgspec.structs.replace(
            request, body="&".join(f"{k}={v}" for k, v in form.items()).encode()
        )

    def token_response(body):
        return {**body, "token_type": "bearer"}

    def userinfo(provider, url, tokens):
        request = OutboundRequest(
            method="POST", url=url, headers=(("x-token", tokens["access_token"]),)
        )
        response = yield from provider_send(request)
        return {"data": response}

    def provider_send(request):
        from sansio_auth.fetch import get_json

        return get_json(request, "userinfo")

    def complete_profile(provider, profile, tokens, params):
        yield from ()
        return {**profile, "extra": params.get("extra")}

    hooks = Hooks(
        options=options,
        authorization_url=authorization_url,
        token_request=token_request,
        token_response=token_response,
        userinfo=userinfo,
        complete_profile=complete_profile,
    )
    service = row(profile=ProfileMap(id="data.id", name=("extra", "data.name")), hooks=hooks)
    h = Harness.build(record(service).from_mapping({"region": "eu"}), env=ENV)
    h.route("POST", "https://id.acme.example/token", fixture("discord/token.json"))
    h.route("POST", "https://api.acme.example/me", fixture("discord/user.json"))
    h.start()
    assert h.authorization_url.startswith("https://eu.id.acme.example/authorize?")
    assert h.authorization_url.endswith("&client_key=acme-client#acme")
    assert query_of(h.authorization_url.split("#")[0])["client_id"] == "acme-client"
    h.assert_signed_in(h.come_back(extra="from the callback"))
    token = h.sent("POST", "https://id.acme.example/token")
    assert form_of(token)["client_key"] == "acme-client"
    assert "code_verifier" not in form_of(token)
    me = h.sent("POST", "https://api.acme.example/me")
    assert headers_of(me) == {"x-token": "6qrZcUqja7812RVdnEKjpzOL4CvHBFG"}
    assert h.session_user()["name"] == "from the callback"
