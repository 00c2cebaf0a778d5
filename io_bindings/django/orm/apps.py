"""The Django app ``io_bindings.django.orm``: the tables of the Django ORM store."""

from django.apps import AppConfig


class SansioAuthOrmConfig(AppConfig):
    """Label ``sansio_auth_orm``: accounts, sessions, verification tokens, passkeys, the
    profile of what the user model lacks, revocation marks (tables ``sansio_auth_*``)."""

    name = "io_bindings.django.orm"
    label = "sansio_auth_orm"
    verbose_name = "sansio-auth"
    default_auto_field = "django.db.models.BigAutoField"
