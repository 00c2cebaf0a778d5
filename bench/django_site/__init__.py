"""The Django project of the ORM bench (:mod:`bench.django_orm`): one server answers both
``GET /auth/session`` (the engine, the Django ORM store) and ``GET /row`` (a bare Django view
reading the same session row with the ORM), on the same database settings.

``uvicorn --factory bench.django_site:create_app``; the database is ``BENCH_DJANGO_SQLITE``
(a file) or ``BENCH_DJANGO_POSTGRES`` (a libpq DSN, through Django's connection pool).
``python -m bench.django_site`` migrates that database and stores the bench user and session.
"""

from __future__ import annotations

import os
from typing import Any


def create_app() -> Any:
    """The factory uvicorn calls: Django's ASGI application for these settings."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.django_site.settings")
    from django.core.asgi import get_asgi_application

    return get_asgi_application()
