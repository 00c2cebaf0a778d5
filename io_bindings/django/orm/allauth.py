"""Coming from django-allauth: its provider logins become the store's accounts, its verified
primary addresses the users' verified addresses. One function, run by the
``sansio_auth_from_allauth`` management command or by a data migration of yours
(``docs/databases/django.md``); with allauth's apps not installed it does nothing, so a
migration that calls it still loads and runs once allauth is gone.

allauth keeps a login in ``socialaccount.SocialAccount`` (``provider``, ``uid``, ``user``),
its tokens in ``socialaccount.SocialToken`` (``token``; ``token_secret``, the refresh token of
OAuth 2; ``expires_at``) and addresses in ``account.EmailAddress`` (``verified``,
``primary``). A login already copied is left as it is: running it again changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.utils import timezone

OIDC_SERVICES = frozenset({"google", "apple", "microsoft", "oidc"})
"""Providers whose accounts Auth.js calls ``"oidc"`` (the others' are ``"oauth"``)."""


def copy_from_allauth(
    apps: Any, using: str = "default", providers: Mapping[str, str] | None = None
) -> tuple[int, int]:
    """Copy allauth's logins into ``Account`` and mark verified primary addresses, on the
    database ``using``; ``apps`` is a migration's (historical) or ``django.apps.apps``.
    ``providers`` maps allauth's provider ids to yours where they differ (an OpenID Connect
    app's ``provider_id``). The numbers of accounts made and addresses marked."""
    copied = _accounts(apps, using, providers or {})
    return copied, _verified_addresses(apps, using)


def _model(apps: Any, app_label: str, name: str, using: str) -> Any:
    try:
        return apps.get_model(app_label, name)._default_manager.using(using)
    except LookupError:  # allauth's app is not installed (any more)
        return None


def _accounts(apps: Any, using: str, providers: Mapping[str, str]) -> int:
    logins = _model(apps, "socialaccount", "SocialAccount", using)
    if logins is None:
        return 0
    social_tokens = _model(apps, "socialaccount", "SocialToken", using)
    accounts = _model(apps, "sansio_auth_orm", "Account", using)
    tokens = {token.account_id: token for token in social_tokens.order_by("pk")}
    copied = 0
    for login in logins.order_by("pk"):
        provider = providers.get(login.provider, login.provider)
        token = tokens.get(login.pk)
        expires_at = token.expires_at if token else None
        _, made = accounts.get_or_create(
            provider=provider,
            provider_account_id=login.uid,
            defaults={
                "user_id": login.user_id,
                "type": "oidc" if provider in OIDC_SERVICES else "oauth",
                "access_token": token.token if token else None,
                "refresh_token": (token.token_secret or None) if token else None,
                "expires_at": int(expires_at.timestamp()) if expires_at else None,
            },
        )
        copied += made
    return copied


def _verified_addresses(apps: Any, using: str) -> int:
    addresses = _model(apps, "account", "EmailAddress", using)
    if addresses is None:
        return 0
    user_model = apps.get_model(settings.AUTH_USER_MODEL)
    own_field = any(field.name == "email_verified" for field in user_model._meta.get_fields())
    users = user_model._default_manager.using(using)
    profiles = _model(apps, "sansio_auth_orm", "UserProfile", using)
    now = timezone.now()  # allauth keeps no time of the verification
    marked = 0
    for address in addresses.filter(verified=True, primary=True).order_by("pk"):
        if own_field:
            marked += users.filter(pk=address.user_id, email_verified__isnull=True).update(
                email_verified=now
            )
        else:
            profiles.get_or_create(user_id=address.user_id)
            marked += profiles.filter(user_id=address.user_id, email_verified__isnull=True).update(
                email_verified=now
            )
    return marked
