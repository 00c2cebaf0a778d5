"""Passwords move into the user model's own ``password`` field, and their table goes.

Each hash of ``sansio_auth_user_password`` becomes the user's ``password`` in Django's
format (the engine's argon2id ``$argon2id$...`` as Django's ``argon2$argon2id$...``), unless
the user has a usable Django password already: that one stays (it is Django's, the one the
admin's form checks). Backwards, the table comes back with every usable ``password``.
"""

from django.conf import settings
from django.db import migrations

UNUSABLE = "!"  # django.contrib.auth.hashers.UNUSABLE_PASSWORD_PREFIX


def django_format(stored: str) -> str:
    """``stored`` as Django's hashers name it (argon2 in PHC format gets its ``argon2``)."""
    return f"argon2{stored}" if stored.startswith("$argon2") else stored


def into_user_model(apps, schema_editor):  # type: ignore[no-untyped-def]
    db = schema_editor.connection.alias
    users = apps.get_model(settings.AUTH_USER_MODEL)._default_manager.using(db)
    passwords = apps.get_model("sansio_auth_orm", "UserPassword")._default_manager.using(db)
    for row in passwords.order_by("pk").iterator():
        user = users.get(pk=row.user_id)
        if not user.password or user.password.startswith(UNUSABLE):
            user.password = django_format(row.hash)
            user.save(update_fields=["password"])


def into_table(apps, schema_editor):  # type: ignore[no-untyped-def]
    db = schema_editor.connection.alias
    users = apps.get_model(settings.AUTH_USER_MODEL)._default_manager.using(db)
    passwords = apps.get_model("sansio_auth_orm", "UserPassword")._default_manager.using(db)
    for user in users.exclude(password="").exclude(password__startswith=UNUSABLE).iterator():
        passwords.update_or_create(user_id=user.pk, defaults={"hash": user.password})


class Migration(migrations.Migration):
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("sansio_auth_orm", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(into_user_model, into_table),
        migrations.DeleteModel(name="UserPassword"),
    ]
