"""A FastAPI app whose users are its own SQLAlchemy model (``io_bindings.db.sqlalchemy``).

Run it from the repository root (``pip install 'sansio-auth[fastapi,sqlalchemy]'``)::

    AUTH_SECRET=$(openssl rand -base64 33) uvicorn examples.fastapi_sqlalchemy_app:app

then open http://127.0.0.1:8000/ and sign in by e-mail (the link is printed) or with a
passkey. Users are rows of the app's ``User`` model (a UUID id, a ``plan`` column of its
own); accounts, sessions, sign-in links and passkeys go to tables made on the same ``Base``.
``EXAMPLE_DATABASE_URL`` picks the database (default ``sqlite:///example-members.db``; e.g.
``postgresql+psycopg://user@host/db`` or ``mysql+pymysql://user@host/db?charset=utf8mb4``);
the tables are made at start-up. ``EXAMPLE_SMTP_PORT`` sends the links to an SMTP server on
127.0.0.1; ``EXAMPLE_OIDC_ISSUER``, ``AUTH_OP_ID`` and ``AUTH_OP_SECRET`` add an OpenID
Connect provider ``op``. See ``docs/databases/sqlalchemy.md``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from html import escape
from typing import Annotated, Any

import anyio.to_thread
from fastapi import Depends, FastAPI
from fastapi.responses import HTMLResponse
from sqlalchemy import String, func, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from io_bindings.db.sqlalchemy import AuthModels, Key, SQLAlchemyAdapter, UTCDateTime
from io_bindings.email import ConsoleSender, SMTPSender
from io_bindings.starlette import HostAuth
from sansio_auth import AuthConfig
from sansio_auth.providers import Email, Passkey


class Base(DeclarativeBase):
    """The app's declarative base: its own tables and the auth tables."""


class User(Base):
    """The app's users, as the app declares them."""

    __tablename__ = "app_users"
    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    email: Mapped[str | None] = mapped_column(Key(320), unique=True)
    email_verified: Mapped[datetime | None] = mapped_column(UTCDateTime)
    name: Mapped[str | None] = mapped_column(String(100))
    image: Mapped[str | None] = mapped_column(String(500))
    plan: Mapped[str] = mapped_column(String(20), default="free")


models = AuthModels(Base, user=User)
adapter = SQLAlchemyAdapter(
    os.environ.get("EXAMPLE_DATABASE_URL", "sqlite:///example-members.db"), models
)


def _sender() -> Any:
    port = os.environ.get("EXAMPLE_SMTP_PORT")
    if port:
        return SMTPSender("127.0.0.1", int(port), security="none", from_="auth@example.com")
    return ConsoleSender()


providers: list[Any] = [Email(send_verification_request=_sender()), Passkey()]
if issuer := os.environ.get("EXAMPLE_OIDC_ISSUER"):
    providers.append({"id": "op", "name": "Test OP", "type": "oidc", "issuer": issuer})
auth_result = HostAuth(
    AuthConfig(
        adapter=adapter,
        providers=providers,  # with a store, the session names its user: session["user"]["id"]
        experimental={"enable_webauthn": True},
    )
)
handlers, auth, sign_in, sign_out, _ = auth_result


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Make the tables that are missing; close the adapter's connections at the end."""
    await anyio.to_thread.run_sync(Base.metadata.create_all, adapter.engine)
    yield
    await adapter.aclose()


app = FastAPI(title="sansio-auth FastAPI + SQLAlchemy example", lifespan=lifespan)
app.mount("/api/auth", handlers)
app.add_middleware(auth_result.middleware)
auth_result.add_to_openapi(app)  # the auth routes in /docs
CurrentUser = Annotated[User, Depends(auth_result.current_user)]  # the User row, or 401


@app.get("/", response_class=HTMLResponse)
async def home() -> str:
    """Who is signed in, with links to sign in and out."""
    session = await auth()
    if session is None:
        return '<p>Not signed in.</p><p><a href="/api/auth/signin">Sign in</a></p>'
    user = escape(str(session["user"].get("email") or session["user"].get("name")))
    return f'<p>Signed in as {user}.</p><p><a href="/me">Your account</a></p>'


@app.get("/me")
def me(user: CurrentUser) -> dict[str, Any]:
    """The signed-in user's own row (``current_user``: an instance of the app's ``User``)
    and what sansio-auth stored for them, read with the app's own models (a sync route:
    FastAPI runs it in a worker thread)."""
    with Session(adapter.engine) as db:
        providers = db.scalars(
            select(models.Account.provider).where(models.Account.user_id == user.id)
        ).all()
        passkeys = db.scalar(select(func.count()).where(models.Authenticator.user_id == user.id))
    return {
        "id": str(user.id),
        "email": user.email,
        "name": user.name,
        "plan": user.plan,
        "accounts": sorted(providers),
        "passkeys": passkeys,
    }
