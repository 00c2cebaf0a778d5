"""The OIDC services that need only their issuer (``issuer_required``): public names kept."""

import pickle

import pytest

from sansio_auth import providers
from sansio_auth.providers import BUILTIN_PROVIDERS, OIDCProvider
from sansio_auth.providers.builtin import ISSUER_REQUIRED, SERVICES

ROWS = {row.id: row for row in SERVICES}
NAMES = {
    "auth0": ("Auth0", "Auth0Provider"),
    "authentik": ("Authentik", "AuthentikProvider"),
    "cognito": ("Cognito", "CognitoProvider"),
    "keycloak": ("Keycloak", "KeycloakProvider"),
    "okta": ("Okta", "OktaProvider"),
    "zitadel": ("ZITADEL", "ZitadelProvider"),
}


def test_the_issuer_only_services_need_an_issuer():
    assert set(NAMES) <= ISSUER_REQUIRED


@pytest.mark.parametrize("provider_id", sorted(NAMES))
def test_public_names(provider_id):
    factory_name, record_name = NAMES[provider_id]
    factory, record = getattr(providers, factory_name), getattr(providers, record_name)
    assert {factory_name, record_name} <= set(providers.__all__)
    assert BUILTIN_PROVIDERS[provider_id] is factory
    assert (factory.__name__, record.__name__, record.__qualname__) == (
        factory_name,
        record_name,
        record_name,
    )
    provider = factory()
    assert type(provider) is record
    assert issubclass(record, OIDCProvider)
    assert repr(provider).startswith(f"{record_name}(id='{provider_id}', ")
    assert pickle.loads(pickle.dumps(provider)) == provider


@pytest.mark.parametrize("provider_id", sorted(NAMES))
def test_docstrings_name_the_service_and_its_variables(provider_id):
    factory_name, record_name = NAMES[provider_id]
    factory, record = getattr(providers, factory_name), getattr(providers, record_name)
    prefix = "AUTH_" + provider_id.upper()
    assert f"``{prefix}_ID``/``_SECRET``/``_ISSUER``" in factory.__doc__
    assert f"The issuer is {ROWS[provider_id].issuer_required}." in factory.__doc__
    assert (
        record.__doc__
        == f"The {ROWS[provider_id].name} provider record (see :func:`{factory_name}`)."
    )


def test_records_are_distinct():
    assert not isinstance(providers.Keycloak(), providers.OktaProvider)
    assert providers.Okta().checks == ("pkce", "state")
    assert providers.Zitadel is providers.ZITADEL
