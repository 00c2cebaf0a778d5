"""Settings of the bench's Django project: Django's own ``auth.User``, the store's app, the
auth ``handle`` after ``CommonMiddleware`` (which sets ``Content-Length``), the database
chosen by the environment."""

from __future__ import annotations

import os
from typing import Any

from bench.app import SECRET

SECRET_KEY = "bench-only"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "io_bindings.django",
    "io_bindings.django.orm",
]
MIDDLEWARE = ["django.middleware.common.CommonMiddleware", "bench.django_site.urls.handle"]
ROOT_URLCONF = "bench.django_site.urls"
USE_TZ = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_SECRET = SECRET
AUTH_TRUST_HOST = True


def _database() -> dict[str, Any]:
    """Django's recommended set-up under ASGI: PostgreSQL through its pool, SQLite as is
    (a connection per request, for the bare view and the store's calls alike)."""
    if dsn := os.environ.get("BENCH_DJANGO_POSTGRES"):
        part = dict(item.split("=", 1) for item in dsn.split())
        return {"ENGINE": "django.db.backends.postgresql", "NAME": part["dbname"],
                "USER": part["user"], "HOST": part["host"], "PORT": part["port"],
                "OPTIONS": {"pool": True}}  # fmt: skip
    return {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ["BENCH_DJANGO_SQLITE"]}


DATABASES = {"default": _database()}
