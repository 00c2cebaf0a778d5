"""The ``members`` app: the project's user model (``AUTH_USER_MODEL = "members.User"``)."""

from django.apps import AppConfig


class MembersConfig(AppConfig):
    """The app of :class:`members.models.User`."""

    name = "members"
    default_auto_field = "django.db.models.BigAutoField"
