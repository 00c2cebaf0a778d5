"""Settings of the users example: a custom user model, the admin, and sansio-auth storing in
the Django ORM.

The database is a SQLite file (``EXAMPLE_SQLITE``, default ``db.sqlite3`` here) or, with
``EXAMPLE_POSTGRES`` set to a libpq connection string (``host=... port=... user=...
dbname=...``), PostgreSQL through psycopg 3 with Django's connection pool, which waits
``EXAMPLE_DB_TIMEOUT`` seconds (default 10) for a connection before the request fails.
``AUTH_SECRET`` comes from the environment (a development default otherwise: set your own in
production).
"""

import os
from pathlib import Path
from typing import Any

BASE_DIR = Path(__file__).resolve().parent
DEBUG = os.environ.get("DJANGO_DEBUG", "1") == "1"
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "django-example-only-not-for-production")
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

AUTH_SECRET = os.environ.get("AUTH_SECRET", "example-secret-change-me-0123456789abcdef")
AUTH_TRUST_HOST = True

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "io_bindings.django",  # the {% load sansio_auth %} tags
    "io_bindings.django.orm",  # the store's tables
    "members",
]
AUTH_USER_MODEL = "members.User"
LOGIN_URL = "/auth/signin"  # login_required lands there with ?next=
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "usersite.auth.handle",  # the auth routes under /auth, request.auth
    "io_bindings.django.users.AuthenticationMiddleware",  # request.user, in place of Django's
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
ROOT_URLCONF = "usersite.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
WSGI_APPLICATION = "usersite.wsgi.application"
ASGI_APPLICATION = "usersite.asgi.application"


def _database() -> dict[str, Any]:
    if dsn := os.environ.get("EXAMPLE_POSTGRES"):
        timeout = float(os.environ.get("EXAMPLE_DB_TIMEOUT", "10"))
        part = dict(item.split("=", 1) for item in dsn.split())
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": part["dbname"],
            "USER": part.get("user", ""),
            "HOST": part.get("host", ""),
            "PORT": part.get("port", ""),
            "OPTIONS": {  # Django's psycopg pool: a connection per request is cheap
                "pool": {"timeout": timeout},
                "connect_timeout": max(1, round(timeout)),
            },
        }
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("EXAMPLE_SQLITE", str(BASE_DIR.parent / "db.sqlite3")),
        "OPTIONS": {
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        },
    }


DATABASES = {"default": _database()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
STATIC_URL = "static/"
USE_TZ = True
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"sansio_auth": {"handlers": ["console"], "level": "INFO"}},
}
