"""Routes: the pages and the sign-in/out form actions (the auth routes are under /auth)."""

from django.urls import path

from . import views
from .auth import sign_in, sign_out

urlpatterns = [
    path("", views.home),
    path("signin", sign_in),
    path("signout", sign_out),
    path("account/", views.account),
    path("account/api", views.whoami),
    path("profile", views.profile),
    path("profile-async", views.profile_async),
    path("whoami", views.whoami),
    path("awhoami", views.awhoami),
]
