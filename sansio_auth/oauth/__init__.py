"""OAuth 2.0 and OpenID Connect client logic: pure functions and flow steps.

The flows that use them live in :mod:`sansio_auth._flows.oauth`. Every outbound
request is a :class:`~sansio_auth.events.SendHTTP` action (built and read with
:mod:`sansio_auth.fetch`, which the provider records' hooks use too); nothing here does IO.

* :mod:`.cache` — the engine-held memo of discovery documents and JWKS;
* :mod:`.discovery` — ``/.well-known/openid-configuration`` and JWKS;
* :mod:`.checks` — the PKCE, state and nonce check cookies;
* :mod:`.authorize_url` — the authorization request;
* :mod:`.callback` — the authorization response;
* :mod:`.tokens` — the token request and response;
* :mod:`.id_token` — ID token validation.
"""
