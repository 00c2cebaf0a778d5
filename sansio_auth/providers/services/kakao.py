"""Kakao (Kakao Login, OAuth 2.0)."""

from ..service import ProfileMap, Service

SERVICE = Service(
    id="kakao",
    name="Kakao",
    type="oauth",
    factory="Kakao",
    authorization="https://kauth.kakao.com/oauth/authorize",
    token="https://kauth.kakao.com/oauth/token",
    userinfo="https://kapi.kakao.com/v2/user/me",
    scope="",
    client_auth="client_secret_post",
    profile=ProfileMap(
        id="id",
        name="kakao_account.profile.nickname",
        email="kakao_account.email",
        image="kakao_account.profile.profile_image_url",
    ),
    setup="https://developers.kakao.com/console/app",
    notes="An empty `scope` (as Auth.js sends): the consent items configured for the app "
    "apply. The client secret goes in the token request's body.",
)
