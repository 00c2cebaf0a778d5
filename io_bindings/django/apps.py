"""The Django app ``io_bindings.django``: the template tags, and the tables of the ORM store."""

from django.apps import AppConfig


class SansioAuthConfig(AppConfig):
    """Label ``sansio_auth``: the ``sansio_auth`` template tag library and the models of
    :mod:`io_bindings.django.store` (accounts, sessions, verification tokens, passkeys)."""

    name = "io_bindings.django"
    label = "sansio_auth"
    verbose_name = "sansio-auth"
    default_auto_field = "django.db.models.BigAutoField"
