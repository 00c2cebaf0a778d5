"""``python -m bench.django_site``: migrate the bench's Django database and store the bench
user and its session (token :data:`bench.database.SESSION_TOKEN`)."""

from __future__ import annotations

import os

import anyio
import django
from django.core.management import call_command

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.django_site.settings")
django.setup()

from bench.database import seed_once  # noqa: E402 - after Django's set-up
from io_bindings.django.orm import DjangoAdapter  # noqa: E402

call_command("migrate", verbosity=0, interactive=False)
anyio.run(seed_once, DjangoAdapter())
