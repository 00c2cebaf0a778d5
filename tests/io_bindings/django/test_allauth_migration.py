"""Coming from django-allauth as ``docs/databases/django.md`` writes it, in a project of its
own (a process of its own: its user model and apps are not this process's): the page's
custom user model, its admin and its data migration, as written. With allauth installed
(its real models and migrations) and a small fixture (two users, a GitHub login with its
tokens, a Google login without, a verified primary address), ``migrate`` copies the logins:
the Django ORM store finds each user by their login, with the tokens and the verified
address, and the management command then finds nothing more to copy. With allauth removed
from ``INSTALLED_APPS``, ``manage.py check`` (the admin's checks too), ``migrate``,
``makemigrations --check`` and ``test`` (a test database made from scratch) all pass."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from live_server import ROOT

DOC = ROOT / "docs" / "databases" / "django.md"
EXAMPLE = ROOT / "examples" / "django_users" / "members"

SETTINGS = """
import os

ALLAUTH = os.environ.get("WITH_ALLAUTH") == "1"
SECRET_KEY = "allauth-migration-test"
INSTALLED_APPS = [
    "django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes",
    "django.contrib.sessions", "django.contrib.messages", "io_bindings.django",
    "io_bindings.django.orm", "members",
    *(["allauth", "allauth.account", "allauth.socialaccount"] if ALLAUTH else []),
]
AUTH_USER_MODEL = "members.User"
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    *(["allauth.account.middleware.AccountMiddleware"] if ALLAUTH else []),
]
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.request",
        "django.contrib.auth.context_processors.auth",
        "django.contrib.messages.context_processors.messages",
    ]},
}]
ROOT_URLCONF = "site_urls"
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": "db.sqlite3"}}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast, tests only
USE_TZ = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
"""

URLS = """
from django.contrib import admin
from django.urls import path

urlpatterns = [path("admin/", admin.site.urls)]
"""

MEMBERS_TESTS = """
from django.test import TestCase

from io_bindings.django.orm.models import Account
from members.models import User


class FreshDatabase(TestCase):
    def test_the_migrations_ran_without_allauth(self):
        User.objects.create(email="eve@example.com")
        self.assertEqual(Account.objects.count(), 0)
"""

FIXTURE = """
from datetime import UTC, datetime

import anyio
import django
from django.contrib.auth.hashers import check_password

django.setup()
from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount, SocialToken
from django.core.management import call_command

from io_bindings.django.orm import DjangoAdapter
from members.models import User

for app in ("socialaccount", "account", "sansio_auth_orm"):
    call_command("migrate", app, verbosity=0)

ada = User(email="ada@example.com", name="Ada")
ada.set_password("pw")
ada.save()
bob = User(email="bob@example.com", name="Bob")
bob.set_unusable_password()
bob.save()
EmailAddress.objects.create(user=ada, email=ada.email, verified=True, primary=True)
EmailAddress.objects.create(user=bob, email=bob.email, verified=False, primary=True)
github = SocialAccount.objects.create(user=ada, provider="github", uid="583231")
expires = datetime(2030, 1, 1, tzinfo=UTC)
SocialToken.objects.create(account=github, token="gho_1", token_secret="ghr_1", expires_at=expires)
SocialAccount.objects.create(user=bob, provider="google", uid="1090")

call_command("migrate", verbosity=0)  # members 0002_from_allauth


async def check() -> None:
    async with DjangoAdapter() as adapter:
        found = await adapter.get_user_by_account("github", "583231")
        assert found["id"] == str(ada.pk) and found["email_verified"] is not None, found
        account = await adapter.get_account("github", "583231")
        assert account["type"] == "oauth", account
        assert (account["access_token"], account["refresh_token"]) == ("gho_1", "ghr_1")
        assert account["expires_at"] == int(expires.timestamp()), account
        found = await adapter.get_user_by_account("google", "1090")
        assert found["id"] == str(bob.pk) and found["email_verified"] is None, found
        account = await adapter.get_account("google", "1090")
        assert account["type"] == "oidc" and account["access_token"] is None, account
        assert check_password("pw", await adapter.get_password_hash(str(ada.pk)))
        assert await adapter.get_password_hash(str(bob.pk)) is None


anyio.run(check)
call_command("sansio_auth_from_allauth")  # again, by hand: nothing more to copy
"""


def documented(first_line: str) -> str:
    """The ``python excerpt`` block of the doc that starts with ``first_line``."""
    blocks = re.findall(r"^```python excerpt\n(.*?)^```$", DOC.read_text(), re.S | re.M)
    [block] = [block for block in blocks if block.startswith(first_line)]
    return block


def project(directory: Path) -> None:
    """The project: settings, URLs, ``manage.py``, and the ``members`` app of the doc."""
    (directory / "site_settings.py").write_text(SETTINGS)
    (directory / "site_urls.py").write_text(URLS)
    shutil.copy(ROOT / "examples" / "django_users" / "manage.py", directory / "manage.py")
    members = directory / "members"
    (members / "migrations").mkdir(parents=True)
    for name in ("__init__.py", "apps.py", "migrations/__init__.py"):
        shutil.copy(EXAMPLE / name, members / name)
    (members / "models.py").write_text(documented("# members/models.py"))
    (members / "admin.py").write_text(documented("# members/admin.py"))
    (members / "tests.py").write_text(MEMBERS_TESTS)


def run(directory: Path, *command: str, allauth: bool = False) -> str:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "site_settings",
        "PYTHONPATH": os.pathsep.join([str(directory), str(ROOT)]),
        "WITH_ALLAUTH": "1" if allauth else "",
    }
    done = subprocess.run(
        [sys.executable, *command], cwd=directory, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, f"{command}: {done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done.stdout + done.stderr


def test_the_documented_allauth_migration_outlives_allauth(tmp_path: Path) -> None:
    pytest.importorskip("allauth", reason="django-allauth is in the test extra")
    project(tmp_path)
    run(tmp_path, "manage.py", "makemigrations", "members", "-v", "0")  # the model's 0001
    migration = tmp_path / "members" / "migrations" / "0002_from_allauth.py"
    migration.write_text(documented("# members/migrations/0002_from_allauth.py"))
    (tmp_path / "fixture.py").write_text(FIXTURE)
    copied = run(tmp_path, "fixture.py", allauth=True)
    assert "0 accounts copied, 0 addresses marked verified" in copied

    # allauth removed from INSTALLED_APPS and MIDDLEWARE
    assert "System check identified no issues" in run(tmp_path, "manage.py", "check")
    run(tmp_path, "manage.py", "migrate", "-v", "0")
    run(tmp_path, "manage.py", "makemigrations", "--check", "--dry-run")
    assert "OK" in run(tmp_path, "manage.py", "test", "members", "-v", "1")
