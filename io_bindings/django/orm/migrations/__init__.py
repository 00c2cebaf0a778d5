"""The Django migrations of the ORM store's tables (``python manage.py migrate``)."""
