"""The Django ORM store's rows in the admin: accounts, sessions and passkeys, to look at and to
delete (unlink an account, end a session, remove a passkey); the engine writes them, so the
admin adds and changes none. Secrets (tokens, session tokens, public keys) are not shown.

For your user model's admin, the inlines :class:`AccountInline`, :class:`SessionInline` and
:class:`AuthenticatorInline` show a user's rows on their page::

    @admin.register(User)
    class UserAdmin(auth_admin.UserAdmin):
        inlines = [AccountInline, SessionInline, AuthenticatorInline]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.http import HttpRequest

from .models import Account, Authenticator, Session

if TYPE_CHECKING:  # generic for the type checker only (django-stubs)
    ModelAdmin = admin.ModelAdmin[Any]
    TabularInline = admin.TabularInline[Any, Any]
else:
    ModelAdmin, TabularInline = admin.ModelAdmin, admin.TabularInline


class _ReadOnly:
    """Rows the engine writes: viewed and deleted here, never added or changed."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


ACCOUNT_FIELDS = ("user", "type", "provider", "provider_account_id", "scope", "expires_at")
SESSION_FIELDS = ("user", "expires")
AUTHENTICATOR_FIELDS = (
    "user",
    "provider_account_id",
    "credential_device_type",
    "credential_backed_up",
    "counter",
    "transports",
)


@admin.register(Account)
class AccountAdmin(_ReadOnly, ModelAdmin):
    """Linked provider accounts (the provider's tokens are not shown)."""

    list_display = ("provider", "provider_account_id", "user", "type")
    list_filter = ("provider", "type")
    search_fields = ("provider_account_id",)
    fields = ACCOUNT_FIELDS
    list_select_related = ("user",)


@admin.register(Session)
class SessionAdmin(_ReadOnly, ModelAdmin):
    """Database sessions; deleting one signs that browser out."""

    list_display = ("user", "expires")
    fields = SESSION_FIELDS
    list_select_related = ("user",)
    date_hierarchy = "expires"


@admin.register(Authenticator)
class AuthenticatorAdmin(_ReadOnly, ModelAdmin):
    """Passkeys; deleting one means it can no longer sign in."""

    list_display = ("user", "credential_device_type", "credential_backed_up", "counter")
    list_filter = ("credential_device_type", "credential_backed_up")
    fields = AUTHENTICATOR_FIELDS
    list_select_related = ("user",)


class AccountInline(_ReadOnly, TabularInline):
    """A user's linked accounts, on the user's admin page."""

    model = Account
    fields = ACCOUNT_FIELDS[1:]
    extra = 0


class SessionInline(_ReadOnly, TabularInline):
    """A user's database sessions, on the user's admin page."""

    model = Session
    fields = SESSION_FIELDS[1:]
    extra = 0


class AuthenticatorInline(_ReadOnly, TabularInline):
    """A user's passkeys, on the user's admin page."""

    model = Authenticator
    fields = AUTHENTICATOR_FIELDS[1:]
    extra = 0
