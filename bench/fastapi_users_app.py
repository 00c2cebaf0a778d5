"""fastapi-users as its documentation sets it up: a SQLAlchemy user table (and, for the
database strategy, its access-token table) in SQLite through aiosqlite, a cookie transport,
the JWT or the database strategy, ``current_user(active=True)`` on the protected endpoint.
The bench user is created at start-up (once per file) with the library's own user manager.
"""

# no `from __future__ import annotations`: FastAPI reads the dependencies' annotations,
# which name local functions

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Annotated, Any

from fastapi import Depends, FastAPI
from fastapi_users import BaseUserManager, FastAPIUsers, UUIDIDMixin, schemas
from fastapi_users.authentication import AuthenticationBackend, CookieTransport, JWTStrategy
from fastapi_users.authentication.strategy.db import DatabaseStrategy
from fastapi_users.exceptions import UserAlreadyExists
from fastapi_users_db_sqlalchemy import SQLAlchemyBaseUserTableUUID, SQLAlchemyUserDatabase
from fastapi_users_db_sqlalchemy.access_token import (
    SQLAlchemyAccessTokenDatabase,
    SQLAlchemyBaseAccessTokenTableUUID,
)
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase

from .app import SECRET, USER
from .peer_apps import PASSWORD, PROTECTED

LIFETIME = 30 * 86400


class Base(DeclarativeBase):
    pass


class User(SQLAlchemyBaseUserTableUUID, Base):
    pass


class AccessToken(SQLAlchemyBaseAccessTokenTableUUID, Base):
    pass


class UserManager(UUIDIDMixin, BaseUserManager[User, uuid.UUID]):
    reset_password_token_secret = SECRET
    verification_token_secret = SECRET


def create(path: str, strategy: str) -> FastAPI:
    """The app on the SQLite file ``path`` with the ``jwt`` or ``database`` strategy."""
    engine = create_async_engine(f"sqlite+aiosqlite:///{path}")
    sessions = async_sessionmaker(engine, expire_on_commit=False)

    async def session() -> AsyncIterator[AsyncSession]:
        async with sessions() as opened:
            yield opened

    async def user_db(opened: Annotated[AsyncSession, Depends(session)]) -> Any:
        yield SQLAlchemyUserDatabase(opened, User)

    async def token_db(opened: Annotated[AsyncSession, Depends(session)]) -> Any:
        yield SQLAlchemyAccessTokenDatabase(opened, AccessToken)

    async def user_manager(users: Annotated[Any, Depends(user_db)]) -> Any:
        yield UserManager(users)

    def jwt_strategy() -> JWTStrategy[User, uuid.UUID]:
        return JWTStrategy(secret=SECRET, lifetime_seconds=LIFETIME)

    def database_strategy(tokens: Annotated[Any, Depends(token_db)]) -> Any:
        return DatabaseStrategy(tokens, lifetime_seconds=LIFETIME)

    backend = AuthenticationBackend(
        name=strategy,
        transport=CookieTransport(cookie_max_age=LIFETIME, cookie_secure=False),
        get_strategy=jwt_strategy if strategy == "jwt" else database_strategy,
    )
    users = FastAPIUsers[User, uuid.UUID](user_manager, [backend])
    current_user = users.current_user(active=True)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with engine.begin() as connection:
            await connection.run_sync(Base.metadata.create_all)
        async with sessions() as opened:
            manager = UserManager(SQLAlchemyUserDatabase(opened, User))
            with suppress(UserAlreadyExists):
                await manager.create(schemas.BaseUserCreate(email=USER["email"], password=PASSWORD))
        yield
        await engine.dispose()

    app = FastAPI(lifespan=lifespan)
    app.include_router(users.get_auth_router(backend), prefix="/auth")

    @app.get(PROTECTED)
    async def me(user: Annotated[User, Depends(current_user)]) -> Any:
        return {"email": user.email}

    return app
