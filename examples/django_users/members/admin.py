"""The members in the admin, with their linked accounts, sessions and passkeys."""

from __future__ import annotations

from django.contrib import admin

from io_bindings.django.orm.admin import AccountInline, AuthenticatorInline, SessionInline

from .models import User


@admin.register(User)
class UserAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """A member's page lists what sansio-auth stored for them."""

    list_display = ("email", "name", "is_staff", "last_login")
    search_fields = ("email", "name")
    fields = ("email", "name", "is_active", "is_staff", "is_superuser", "groups", "last_login")
    readonly_fields = ("last_login",)
    inlines = (AccountInline, SessionInline, AuthenticatorInline)
