"""Figma (OAuth 2.0)."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

SERVICE = Service(
    id="figma",
    name="Figma",
    type="oauth",
    factory="Figma",
    authorization="https://www.figma.com/oauth",
    token="https://api.figma.com/v1/oauth/token",
    userinfo="https://api.figma.com/v1/me",
    scope="files:read",
    checks=("state",),
    profile=ProfileMap(id="id", name="handle", email="email", image="img_url"),
    style=ProviderStyle(bg="#ff7237", text="#fff"),
    setup="https://www.figma.com/developers/apps",
    notes="The `state` check only. Figma has deprecated `files:read` (it still works); "
    '`current_user:read` is the granular scope for `/v1/me`: `Figma(authorization={"params": '
    '{"scope": "current_user:read"}})`.',
)
