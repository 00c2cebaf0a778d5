"""Settings of the example project: the auth app, the auth hooks in ``MIDDLEWARE``.

``AUTH_SECRET`` comes from the environment (a development default otherwise: set your
own in production, at least 32 characters); ``AUTH_TRUST_HOST`` trusts the ``Host``
header, which Django itself checks against ``ALLOWED_HOSTS``.
"""

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent
DEBUG = os.environ.get("DJANGO_DEBUG", "1") == "1"
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "django-example-only-not-for-production")
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

AUTH_SECRET = os.environ.get("AUTH_SECRET", "example-secret-change-me-0123456789abcdef")
AUTH_TRUST_HOST = True

INSTALLED_APPS = [
    "django.contrib.staticfiles",
    "io_bindings.django",  # the {% load sansio_auth %} template tags
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "myproject.auth.hooks",  # handle, then protect_prefix("/account/")
]
ROOT_URLCONF = "myproject.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    }
]
WSGI_APPLICATION = "myproject.wsgi.application"
ASGI_APPLICATION = "myproject.asgi.application"
DATABASES: dict[str, dict[str, str]] = {}
STATIC_URL = "static/"
USE_TZ = True
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"sansio_auth": {"handlers": ["console"], "level": "INFO"}},
}
