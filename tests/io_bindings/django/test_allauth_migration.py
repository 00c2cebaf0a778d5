"""The data migration from django-allauth that ``docs/databases/django.md`` documents, run as
written on a small fixture: a project with allauth installed (its real models and
migrations) and the users example's ``members.User``; two users, a GitHub login with its
tokens, a Google login without, a verified primary address. Afterwards the Django ORM store
finds each user by their login, with the tokens and the verified address. It runs in a
process of its own (its user model and apps are not this process's)."""

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
MIGRATION = "# members/migrations/0002_from_allauth.py"

SCRIPT = """
import os
from datetime import UTC, datetime

import anyio
import django
from django.conf import settings

settings.configure(
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "allauth",
                    "allauth.account", "allauth.socialaccount", "io_bindings.django.orm",
                    "members"],
    AUTH_USER_MODEL="members.User",
    MIDDLEWARE=["allauth.account.middleware.AccountMiddleware"],  # allauth insists
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": "db.sqlite3"}},
    USE_TZ=True,
)
django.setup()
from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount, SocialToken
from django.core.management import call_command

from io_bindings.django.orm import DjangoAdapter
from members.models import User

for app in ("socialaccount", "account", "sansio_auth_orm"):
    call_command("migrate", app, verbosity=0)
call_command("migrate", "members", "0001", verbosity=0)

ada = User.objects.create_user("ada@example.com", "pw", name="Ada")
bob = User.objects.create_user("bob@example.com", None, name="Bob")
EmailAddress.objects.create(user=ada, email=ada.email, verified=True, primary=True)
EmailAddress.objects.create(user=bob, email=bob.email, verified=False, primary=True)
github = SocialAccount.objects.create(user=ada, provider="github", uid="583231")
expires = datetime(2030, 1, 1, tzinfo=UTC)
SocialToken.objects.create(account=github, token="gho_1", token_secret="ghr_1", expires_at=expires)
SocialAccount.objects.create(user=bob, provider="google", uid="1090")

call_command("migrate", "members", verbosity=0)  # 0002_from_allauth


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


anyio.run(check)
print("migrated")
"""


def documented_migration() -> str:
    """The migration module as the doc shows it."""
    blocks = re.findall(r"^```python excerpt\n(.*?)^```$", DOC.read_text(), re.S | re.M)
    [migration] = [block for block in blocks if block.startswith(MIGRATION)]
    return migration


def test_the_documented_allauth_migration_runs_on_a_fixture(tmp_path: Path) -> None:
    pytest.importorskip("allauth", reason="django-allauth is in the test extra")
    members = tmp_path / "members"
    shutil.copytree(ROOT / "examples" / "django_users" / "members", members,
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    (members / "migrations" / "0002_from_allauth.py").write_text(documented_migration())
    (tmp_path / "check.py").write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "check.py"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "migrated"
