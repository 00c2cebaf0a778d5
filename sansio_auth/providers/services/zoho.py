"""Zoho (Zoho Accounts OAuth 2.0, the US data center)."""

from ..service import Join, ProfileMap, Service

SERVICE = Service(
    id="zoho",
    name="Zoho",
    type="oauth",
    factory="Zoho",
    authorization="https://accounts.zoho.com/oauth/v2/auth",
    token="https://accounts.zoho.com/oauth/v2/token",
    userinfo="https://accounts.zoho.com/oauth/user/info",
    scope="AaaServer.profile.Read",
    profile=ProfileMap(id="ZUID", name=Join("First_Name", "Last_Name"), email="Email"),
    setup="https://api-console.zoho.com/",
    notes="The endpoints are those of `accounts.zoho.com` (US); for another data center "
    "(`accounts.zoho.eu`, `.in`, ...) override the three URLs.",
)
