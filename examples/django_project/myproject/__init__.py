"""The sansio-auth Django example: see ``docs/adapters/django.md``."""
