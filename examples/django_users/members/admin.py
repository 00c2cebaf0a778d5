"""The members in the admin (Django's ``UserAdmin`` on this model's fields: passwords set
here are the ones the ``Password`` provider checks), with their linked accounts, sessions and
passkeys."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm

from io_bindings.django.orm.admin import AccountInline, AuthenticatorInline, SessionInline

from .models import User


class MemberCreationForm(AdminUserCreationForm):  # type: ignore[type-arg]
    """A new member: an address, and a password or none."""

    class Meta:
        model = User
        fields = ("email",)


class MemberChangeForm(UserChangeForm):  # type: ignore[type-arg]
    """A member's page (the password by its own form)."""

    class Meta:
        model = User
        fields = "__all__"


@admin.register(User)
class MemberAdmin(UserAdmin):  # type: ignore[type-arg]
    """A member's page lists what sansio-auth stored for them."""

    form, add_form = MemberChangeForm, MemberCreationForm
    ordering = ("email",)
    list_display = ("email", "name", "is_staff", "last_login")
    list_filter = ("is_staff", "is_superuser", "is_active")
    search_fields = ("email", "name")
    fieldsets = (
        (None, {"fields": ("email", "password", "name")}),
        (
            "Permissions",
            {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")},
        ),
        ("Dates", {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = ((None, {"fields": ("email", "usable_password", "password1", "password2")}),)
    inlines = (AccountInline, SessionInline, AuthenticatorInline)
