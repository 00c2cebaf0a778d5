"""The users example: Django's own users, admin and ``request.user`` with sansio-auth; see
``docs/databases/django.md``."""
