"""``manage.py sansio_auth_from_allauth``: copy django-allauth's logins and verified addresses
into the store's tables (:func:`io_bindings.django.orm.allauth.copy_from_allauth`)."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, transaction

from ...allauth import copy_from_allauth


class Command(BaseCommand):
    help = (
        "Copy django-allauth's social accounts (with their tokens) and verified primary "
        "addresses into sansio-auth's tables. Run it with allauth still installed, after "
        "`migrate`; running it again changes nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)
        parser.add_argument(
            "--provider",
            action="append",
            default=[],
            metavar="ALLAUTH_ID=ID",
            help="a provider id of yours that differs from allauth's (repeatable)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not apps.is_installed("allauth.socialaccount"):
            raise CommandError("allauth.socialaccount is not in INSTALLED_APPS: nothing to copy")
        providers = dict(self._pair(given) for given in options["provider"])
        database = options["database"]
        with transaction.atomic(using=database):
            accounts, addresses = copy_from_allauth(apps, database, providers)
        self.stdout.write(f"{accounts} accounts copied, {addresses} addresses marked verified")

    @staticmethod
    def _pair(given: str) -> tuple[str, str]:
        theirs, sep, ours = given.partition("=")
        if not (sep and theirs and ours):
            raise CommandError(f"--provider takes ALLAUTH_ID=ID, not {given!r}")
        return theirs, ours
