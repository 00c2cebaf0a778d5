"""WSGI entry point (``manage.py runserver``, gunicorn ``usersite.wsgi``)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "usersite.settings")
application = get_wsgi_application()
