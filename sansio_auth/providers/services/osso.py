"""Osso (SAML identity providers behind an OAuth 2.0 code flow), named by the issuer."""

from ..service import Service

SERVICE = Service(
    id="osso",
    name="Osso",
    type="oauth",
    factory="Osso",
    issuer_required="your Osso instance's URL, e.g. ``https://demo.ossoapp.com``",
    authorization="{issuer}/oauth/authorize",
    token="{issuer}/oauth/token",
    userinfo="{issuer}/oauth/me",
    setup="https://ossoapp.com/docs/configure/overview",
    notes="The issuer is the Osso instance. Osso routes the user to their company's SAML "
    "identity provider; a `domain` or `email` parameter on the sign-in request skips "
    "Osso's login form. The profile is Auth.js's default mapping (`id`, `email`).",
    differs="The issuer is a URL (`https://demo.ossoapp.com`, with or without the final "
    "`/`): Auth.js documents a bare domain and joins it without a `/`, which gives no usable "
    "URL. The issuer may also come from `AUTH_OSSO_ISSUER`.",
)
