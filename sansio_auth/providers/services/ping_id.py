"""Ping Identity, PingOne (OpenID Connect): the issuer is the environment's."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="ping-id",
    name="Ping Identity",
    type="oidc",
    factory="PingId",
    issuer_required="the environment's, e.g. ``https://auth.pingone.com/<environment id>/as``",
    style=ProviderStyle(),
    setup="https://docs.pingidentity.com/r/en-us/pingone/p1_add_app_worker",
)
