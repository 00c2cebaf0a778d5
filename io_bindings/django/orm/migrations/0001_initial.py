"""The tables of the Django ORM store (made by ``makemigrations``; the user model is swappable)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="RateLimitCounter",
            fields=[
                ("key", models.CharField(max_length=255, primary_key=True, serialize=False)),
                ("count", models.BigIntegerField()),
                ("reset_at", models.DateTimeField(db_index=True)),
            ],
            options={
                "db_table": "sansio_auth_rate_limit_counter",
            },
        ),
        migrations.CreateModel(
            name="SessionRevocation",
            fields=[
                ("key", models.CharField(max_length=255, primary_key=True, serialize=False)),
                ("not_before", models.DateTimeField()),
                ("expires", models.DateTimeField(blank=True, db_index=True, null=True)),
            ],
            options={
                "db_table": "sansio_auth_session_revocation",
            },
        ),
        migrations.CreateModel(
            name="UserProfile",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="auth_profile",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("email_verified", models.DateTimeField(blank=True, null=True)),
                ("name", models.TextField(blank=True, null=True)),
                ("image", models.TextField(blank=True, null=True)),
            ],
            options={
                "db_table": "sansio_auth_user_profile",
            },
        ),
        migrations.CreateModel(
            name="UserPassword",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="auth_password",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("hash", models.TextField()),
            ],
            options={
                "db_table": "sansio_auth_user_password",
            },
        ),
        migrations.CreateModel(
            name="UserTwoFactor",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="auth_two_factor",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("totp_secret", models.TextField()),
                ("totp_last_step", models.BigIntegerField(blank=True, null=True)),
                ("recovery_codes", models.JSONField(default=list)),
                ("enabled_at", models.DateTimeField()),
            ],
            options={
                "db_table": "sansio_auth_user_two_factor",
            },
        ),
        migrations.CreateModel(
            name="Authenticator",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("credential_id", models.CharField(max_length=512, unique=True)),
                ("provider_account_id", models.CharField(max_length=512)),
                ("credential_public_key", models.TextField()),
                ("counter", models.BigIntegerField()),
                ("credential_device_type", models.CharField(max_length=32)),
                ("credential_backed_up", models.BooleanField()),
                ("transports", models.CharField(blank=True, max_length=255, null=True)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="auth_authenticators",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "db_table": "sansio_auth_authenticator",
            },
        ),
        migrations.CreateModel(
            name="Session",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("session_token", models.CharField(max_length=255, unique=True)),
                ("expires", models.DateTimeField()),
                ("sid", models.CharField(blank=True, db_index=True, max_length=255, null=True)),
                ("created_at", models.DateTimeField(blank=True, null=True)),
                ("last_seen_at", models.DateTimeField(blank=True, null=True)),
                ("user_agent", models.TextField(blank=True, null=True)),
                ("ip_address", models.CharField(blank=True, max_length=64, null=True)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="auth_sessions",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "db_table": "sansio_auth_session",
            },
        ),
        migrations.CreateModel(
            name="SessionRecord",
            fields=[
                ("sid", models.CharField(max_length=255, primary_key=True, serialize=False)),
                ("user_id", models.CharField(db_index=True, max_length=255)),
                ("expires", models.DateTimeField()),
                ("created_at", models.DateTimeField()),
                ("last_seen_at", models.DateTimeField()),
                ("user_agent", models.TextField(blank=True, null=True)),
                ("ip_address", models.CharField(blank=True, max_length=64, null=True)),
            ],
            options={
                "db_table": "sansio_auth_session_record",
            },
        ),
        migrations.CreateModel(
            name="VerificationToken",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("identifier", models.CharField(max_length=255)),
                ("token", models.CharField(max_length=255)),
                ("expires", models.DateTimeField()),
            ],
            options={
                "db_table": "sansio_auth_verification_token",
                "constraints": [
                    models.UniqueConstraint(
                        fields=("identifier", "token"), name="sansio_auth_verification_token_unique"
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="Account",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("type", models.CharField(max_length=32)),
                ("provider", models.CharField(max_length=255)),
                ("provider_account_id", models.CharField(max_length=255)),
                ("access_token", models.TextField(blank=True, null=True)),
                ("token_type", models.CharField(blank=True, max_length=255, null=True)),
                ("id_token", models.TextField(blank=True, null=True)),
                ("refresh_token", models.TextField(blank=True, null=True)),
                ("scope", models.TextField(blank=True, null=True)),
                ("expires_at", models.BigIntegerField(blank=True, null=True)),
                ("session_state", models.TextField(blank=True, null=True)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="auth_accounts",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "db_table": "sansio_auth_account",
                "constraints": [
                    models.UniqueConstraint(
                        fields=("provider", "provider_account_id"),
                        name="sansio_auth_account_unique",
                    )
                ],
            },
        ),
    ]
