"""Routes: the pages, the sign-in/out form actions and the admin (auth routes are under /auth)."""

from django.contrib import admin
from django.urls import path

from . import views
from .auth import sign_in, sign_out

urlpatterns = [
    path("", views.home),
    path("signin", sign_in),
    path("signout", sign_out),
    path("account/", views.account),
    path("whoami", views.whoami),
    path("admin/", admin.site.urls),
]
