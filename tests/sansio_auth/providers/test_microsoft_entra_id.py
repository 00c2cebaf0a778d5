"""Microsoft Entra ID from recorded responses: tenant issuers, the `{tenantid}` template, photo."""

import base64

import pytest

from sansio_auth.errors import Configuration
from sansio_auth.events import HTTPResponse
from sansio_auth.providers import MicrosoftEntraID, MicrosoftEntraIDProvider
from sansio_auth.providers.services.microsoft_entra_id import CONSUMERS_TENANT
from tests.sansio_auth.driver import ORIGIN, AuthPair
from tests.sansio_auth.oauth.fake_op import assert_failed
from tests.sansio_auth.providers.recorded import fixture, headers_of, json_response
from tests.sansio_auth.providers.service import Harness, jwks, sign

LOGIN = "https://login.microsoftonline.com"
TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47"
OTHER_TENANT = "f8cdef31-a31e-4b4a-93e4-5f571e91255a"
CLIENT_ID = "6cb04018-a3f5-46a7-b995-940c78f5aef3"
ENV = {"AUTH_MICROSOFT_ENTRA_ID_ID": CLIENT_ID, "AUTH_MICROSOFT_ENTRA_ID_SECRET": "Qd~8Q~sec"}
PHOTO = "https://graph.microsoft.com/v1.0/me/photos/48x48/$value"
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01recorded-48x48-photo\xff\xd9"


def entra(tenant="common", photo=None, provider=MicrosoftEntraID, env=ENV, **claims):
    """Entra for ``tenant`` (``common``, ``organizations``, ``consumers`` or a tenant id)."""
    h = Harness.build(provider, env=env)
    document = "common" if tenant in ("common", "organizations", "consumers") else "tenant"
    base = f"{LOGIN}/{tenant}"
    h.route("GET", f"{base}/v2.0/.well-known/openid-configuration", _document(document, tenant))
    h.route("GET", f"{base}/discovery/v2.0/keys", jwks())
    h.route(
        "POST",
        f"{base}/oauth2/v2.0/token",
        h.id_token_answer(
            "microsoft-entra-id/token.json", "microsoft-entra-id/id_token_claims.json", **claims
        ),
    )
    h.route(
        "GET",
        PHOTO,
        photo or HTTPResponse(status=200, headers={"content-type": "image/jpeg"}, body=JPEG),
    )
    return h


def _document(name, tenant):
    """A recorded discovery document; the multi-tenant one re-pathed for ``tenant``."""
    response = fixture(f"microsoft-entra-id/openid-configuration-{name}.json")
    body = response.body.replace(b"/common/", f"/{tenant}/".encode())
    return HTTPResponse(status=200, headers=response.headers, body=body)


def test_defaults_match_auth_js():
    provider = MicrosoftEntraID()
    assert isinstance(provider, MicrosoftEntraIDProvider)
    assert (provider.id, provider.name, provider.type) == (
        "microsoft-entra-id",
        "Microsoft Entra ID",
        "oidc",
    )
    assert provider.authorization.params == {"scope": "openid profile email User.Read"}
    assert provider.checks == ("pkce",)
    assert provider.client.token_endpoint_auth_method == "client_secret_basic"
    assert provider.profile_photo
    assert provider.profile_photo_size == 48


def issuer_of(pair: AuthPair) -> str | None:
    return pair.engine.settings.providers_by_id["microsoft-entra-id"].issuer


def test_issuer_from_config_then_env_then_common():
    env_issuer = f"{LOGIN}/{TENANT}/v2.0"
    assert issuer_of(entra().pair) == f"{LOGIN}/common/v2.0"
    with_env = {**ENV, "AUTH_MICROSOFT_ENTRA_ID_ISSUER": env_issuer}
    assert issuer_of(entra(env=with_env).pair) == env_issuer
    configured = MicrosoftEntraID(issuer=f"{LOGIN}/organizations/v2.0")
    assert issuer_of(entra(provider=configured, env=with_env).pair) == f"{LOGIN}/organizations/v2.0"


def test_authorization_request_from_the_common_document():
    h = entra()
    h.start()
    assert h.authorization_url.startswith(f"{LOGIN}/common/oauth2/v2.0/authorize?")
    params = h.authorization
    assert params["client_id"] == CLIENT_ID
    assert params["scope"] == "openid profile email User.Read"
    assert params["redirect_uri"] == f"{ORIGIN}/auth/callback/microsoft-entra-id"
    assert params["code_challenge_method"] == "S256"


def test_multi_tenant_sign_in_checks_the_tokens_own_tenant():
    h = entra()
    event = h.assert_signed_in(h.sign_in())
    token = h.sent("POST", f"{LOGIN}/common/oauth2/v2.0/token")
    assert headers_of(token)["authorization"].startswith("Basic ")
    assert event["account"]["provider_account_id"] == "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ"
    assert event["account"]["ext_expires_in"] == 4763
    assert event["profile"]["tid"] == TENANT
    photo = h.sent("GET", PHOTO)
    assert headers_of(photo)["authorization"].startswith("Bearer eyJ0eXAi")
    data_url = "data:image/jpeg;base64," + base64.b64encode(JPEG).decode()
    assert h.session_user() == {
        "name": "Megan Bowen",
        "email": "meganb@contoso.com",
        "image": data_url,
    }


def test_a_token_whose_iss_is_not_its_tid_is_refused():
    h = entra(tid=OTHER_TENANT)
    h.start()
    h.pair.performer.clear()
    assert_failed(h.pair, h.come_back(), because="`iss`")


@pytest.mark.parametrize(
    ("tenant", "tid", "admitted"),
    [
        ("organizations", TENANT, True),
        ("organizations", CONSUMERS_TENANT, False),
        ("consumers", CONSUMERS_TENANT, True),
        ("consumers", TENANT, False),
        ("common", CONSUMERS_TENANT, True),
    ],
)
def test_organizations_and_consumers_admit_their_accounts_only(tenant, tid, admitted):
    provider = MicrosoftEntraID(issuer=f"{LOGIN}/{tenant}/v2.0")
    h = entra(tenant, provider=provider, tid=tid, iss=f"{LOGIN}/{tid}/v2.0")
    h.start()
    response = h.come_back()
    if admitted:
        h.assert_signed_in(response)
    else:
        assert_failed(h.pair, response, because="`iss`")


def test_single_tenant():
    provider = MicrosoftEntraID(issuer=f"{LOGIN}/{TENANT}/v2.0")
    h = entra(TENANT, provider=provider)
    h.assert_signed_in(h.sign_in())
    other = entra(TENANT, provider=provider, tid=OTHER_TENANT, iss=f"{LOGIN}/{OTHER_TENANT}/v2.0")
    other.start()
    assert_failed(other.pair, other.come_back(), because="`iss`")


@pytest.mark.parametrize(
    "photo",
    [
        HTTPResponse(status=404, body=b'{"error":{"code":"ImageNotFound"}}'),
        HTTPResponse(status=200, headers={"content-type": "image/jpeg"}, body=b"x" * 20_000),
        HTTPResponse(status=200, headers={"content-type": "image/jpeg"}, body=b""),
    ],
)
def test_no_usable_photo_leaves_no_image(photo):
    h = entra(photo=photo)
    h.assert_signed_in(h.sign_in())
    assert h.session_user()["image"] is None


def test_a_photo_request_that_fails_leaves_no_image():
    def timeout(request):
        raise TimeoutError("graph timed out")

    h = entra(photo=timeout)
    h.assert_signed_in(h.sign_in())
    assert h.session_user()["image"] is None


def test_photo_media_type_and_size_option():
    png = HTTPResponse(status=200, headers={"content-type": "image/png"}, body=b"\x89PNG")
    h = entra(photo=png)
    h.assert_signed_in(h.sign_in())
    assert h.session_user()["image"] == "data:image/png;base64,iVBORw=="
    no_photo = entra(provider=MicrosoftEntraID(profile_photo=False))
    no_photo.assert_signed_in(no_photo.sign_in())
    assert no_photo.service.sent("GET", PHOTO) == []
    assert no_photo.session_user()["image"] is None
    sized = entra(provider=MicrosoftEntraID(profile_photo_size=96))
    sized.route("GET", PHOTO.replace("48x48", "96x96"), png)
    sized.assert_signed_in(sized.sign_in())
    assert sized.session_user()["image"].startswith("data:image/png")
    with pytest.raises(Configuration, match="profile_photo_size"):
        MicrosoftEntraID(profile_photo_size=50)


def test_id_token_issuer_only_reads_a_tenant_id():
    provider = MicrosoftEntraID()
    common = f"{LOGIN}/common/v2.0"
    assert provider.id_token_issuer(common, sign({"tid": TENANT})) == f"{LOGIN}/{TENANT}/v2.0"
    assert provider.id_token_issuer(common, sign({"tid": "../evil"})) == common
    assert provider.id_token_issuer(common, "not-a-jwt") == common
    assert provider.id_token_issuer(common, "a.!!!.c") == common
    tenant_issuer = f"{LOGIN}/{TENANT}/v2.0"
    assert provider.id_token_issuer(tenant_issuer, sign({"tid": OTHER_TENANT})) == tenant_issuer


def test_a_token_error_goes_back_to_the_sign_in_page_as_in_auth_js():
    """Entra's documented error response (learn.microsoft.com, v2-oauth2-auth-code-flow)."""
    h = entra()
    refused = {
        "error": "invalid_grant",
        "error_description": "AADSTS70008: The provided authorization code or refresh token has "
        "expired due to inactivity. Send a new interactive authorization request for this user "
        "and resource.",
        "error_codes": [70008],
        "timestamp": "2024-05-28 19:44:44Z",
        "trace_id": "0000aaaa-11bb-cccc-dd22-eeeeee333333",
        "correlation_id": "aaaa0000-bb11-2222-33cc-444444dddddd",
    }
    h.route("POST", f"{LOGIN}/common/oauth2/v2.0/token", json_response(refused, 400))
    h.start()
    h.pair.performer.clear()
    response = h.come_back()
    assert_failed(h.pair, response, "OAuthCallbackError", page="signin", because="invalid_grant")


def test_a_token_endpoint_outside_the_protocol_is_still_a_configuration_error():
    h = entra()
    h.route("POST", f"{LOGIN}/common/oauth2/v2.0/token", HTTPResponse(status=502, body=b"<html>"))
    h.start()
    h.pair.performer.clear()
    assert_failed(h.pair, h.come_back(), because="HTTP 502")
