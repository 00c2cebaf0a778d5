"""Cognito (OpenID Connect): the issuer is the user's own."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="cognito",
    name="Cognito",
    type="oidc",
    factory="Cognito",
    issuer_required="the user pool URL, e.g. "
    "``https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEfGhI``",
    style=ProviderStyle(brand_color="#C17B9E", text="#fff"),
    setup="https://docs.aws.amazon.com/cognito/latest/developerguide/cognito-userpools-server-contract-reference.html",
)
