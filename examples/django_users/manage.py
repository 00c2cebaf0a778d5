#!/usr/bin/env python
"""Django's command-line utility for the users example (``runserver`` is WSGI)."""

import os
import sys
from pathlib import Path

if __name__ == "__main__":
    # The repository root, so `io_bindings` imports from a checkout without installing.
    sys.path.append(str(Path(__file__).resolve().parents[2]))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "usersite.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
