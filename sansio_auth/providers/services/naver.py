"""Naver (네이버 로그인, OAuth 2.0)."""

from ..service import ProfileMap, Service

SERVICE = Service(
    id="naver",
    name="Naver",
    type="oauth",
    factory="Naver",
    authorization="https://nid.naver.com/oauth2.0/authorize",
    token="https://nid.naver.com/oauth2.0/token",
    userinfo="https://openapi.naver.com/v1/nid/me",
    profile=ProfileMap(
        id="response.id",
        name="response.nickname",
        email="response.email",
        image="response.profile_image",
    ),
    setup="https://developers.naver.com/docs/login/overview/overview.md",
    notes="The profile is the `response` member of `/v1/nid/me`; the name is the nickname.",
)
