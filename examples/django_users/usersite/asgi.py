"""ASGI entry point: ``uvicorn --app-dir examples/django_users usersite.asgi:application``."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "usersite.settings")
application = get_asgi_application()
