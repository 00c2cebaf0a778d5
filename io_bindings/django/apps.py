"""The Django app ``io_bindings.django`` (add it to ``INSTALLED_APPS`` for the template tags)."""

from django.apps import AppConfig


class SansioAuthConfig(AppConfig):
    """Label ``sansio_auth``: no models, only the ``sansio_auth`` template tag library."""

    name = "io_bindings.django"
    label = "sansio_auth"
    verbose_name = "sansio-auth"
