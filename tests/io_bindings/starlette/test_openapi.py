"""FastAPI's ``/openapi.json`` with ``HostAuth``: the auth routes under the path the handlers
are mounted at (from the engine's route table: methods, bodies, answers), and the session
cookie as the security scheme of the operations that depend on ``session``,
``require_session`` or ``current_user``. Read as a client reads it, validated by FastAPI's own
model of an OpenAPI document plus the checks a validator makes (references resolve, path
parameters declared, operation ids unique)."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import pytest
from fastapi import Depends, FastAPI
from fastapi.openapi.models import OpenAPI
from starlette.routing import Route

from io_bindings.starlette import HostAuthResult
from sansio_auth._routes import ROUTES
from tests.io_bindings.starlette.apps import client, host, make_config

pytestmark = pytest.mark.anyio
COOKIE = {"type": "apiKey", "in": "cookie", "name": "authjs.session-token"}


def app_for(result: HostAuthResult, mount: str | None = "/api/auth") -> FastAPI:
    app = FastAPI()
    if mount is not None:
        app.mount(mount, result.handlers)

    @app.get("/optional")
    async def optional(session: Any = Depends(result.session)) -> Any:  # noqa: B008 - a local
        return session

    @app.get("/required")
    async def required(session: Any = Depends(result.require_session)) -> Any:  # noqa: B008
        return session

    @app.get("/me")
    async def me(user: Any = Depends(result.current_user)) -> Any:  # noqa: B008
        return user

    @app.get("/public")
    async def public() -> Any:
        return {}

    result.add_to_openapi(app)
    return app


async def openapi_of(app: FastAPI) -> dict[str, Any]:
    async with client(app) as http:
        assert (await http.get("/docs")).status_code == 200  # Swagger UI
        document: dict[str, Any] = (await http.get("/openapi.json")).json()
    validate(document)
    return document


def validate(document: dict[str, Any]) -> None:
    """What an OpenAPI validator checks that FastAPI's model does not."""
    OpenAPI.model_validate(document)
    assert document["openapi"].startswith("3.")
    ids = [op["operationId"] for item in document["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids)), "operation ids are unique"
    for path, item in document["paths"].items():
        for method, operation in item.items():
            assert method in ("get", "post", "put", "patch", "delete")
            assert operation["responses"], f"{method} {path} answers something"
            declared = {p["name"] for p in operation.get("parameters", ()) if p["in"] == "path"}
            assert declared == set(re.findall(r"{(\w+)}", path)), f"{method} {path}"
    for reference in re.findall(r'"\$ref": "#/([^"]+)"', json.dumps(document)):
        node: Any = document
        for part in reference.split("/"):
            node = node[part]


def expected_paths(prefix: str) -> dict[str, set[str]]:
    """Every route of the engine's table under ``prefix``: path → methods."""
    paths: dict[str, set[str]] = {}
    for (method, _), route in ROUTES.items():
        spelled = route.path.replace("<provider>", "{provider}")
        for path in (spelled.replace("[", "").replace("]", ""), re.sub(r"\[.*\]", "", spelled)):
            paths.setdefault(f"{prefix}/{path}", set()).add(method.lower())
    return paths


async def test_every_auth_route_is_listed_under_the_mount_with_its_body_and_answers() -> None:
    document = await openapi_of(app_for(host(make_config())))
    listed = {path: set(item) for path, item in document["paths"].items()}
    for path, methods in expected_paths("/api/auth").items():
        assert listed.get(path) == methods, path
    paths = document["paths"]
    sign_in = paths["/api/auth/signin/{provider}"]["post"]
    assert sign_in["tags"] == ["auth"]
    body = sign_in["requestBody"]["content"]
    assert set(body) == {"application/x-www-form-urlencoded", "application/json"}
    assert body["application/json"]["schema"]["required"] == ["csrfToken"]
    assert {"csrfToken", "callbackUrl", "email"} <= set(
        body["application/json"]["schema"]["properties"]
    )
    assert "Location" in sign_in["responses"]["302"]["headers"]
    assert (
        "url" in sign_in["responses"]["200"]["content"]["application/json"]["schema"]["properties"]
    )
    assert any(p["name"] == "X-Auth-Return-Redirect" for p in sign_in["parameters"])
    signup = paths["/api/auth/signup"]["post"]["requestBody"]["content"]["application/json"]
    assert {"email", "password", "name"} <= set(signup["schema"]["properties"])
    assert "application/json" in paths["/api/auth/session"]["get"]["responses"]["200"]["content"]
    assert "text/html" in paths["/api/auth/signin"]["get"]["responses"]["200"]["content"]
    backchannel = paths["/api/auth/backchannel-logout/{provider}"]["post"]["requestBody"]
    assert "csrfToken" not in backchannel["content"]["application/json"]["schema"]["properties"]
    assert not backchannel["required"]
    callback = paths["/api/auth/callback/{provider}"]["post"]["requestBody"]["content"]
    assert "required" not in callback["application/json"]["schema"]  # a token only for some


async def test_the_dependencies_declare_the_session_cookie() -> None:
    document = await openapi_of(app_for(host(make_config())))
    schemes = document["components"]["securitySchemes"]
    assert {k: schemes["sessionCookie"][k] for k in COOKIE} == COOKIE
    secure = {**COOKIE, "name": "__Secure-authjs.session-token"}
    assert {k: schemes["secureSessionCookie"][k] for k in secure} == secure  # over https
    for path in ("/optional", "/required", "/me"):
        security = document["paths"][path]["get"]["security"]
        assert security == [{"sessionCookie": []}, {"secureSessionCookie": []}], path
    assert "security" not in document["paths"]["/public"]["get"]


async def test_a_config_that_fixes_the_cookie_name_declares_that_one() -> None:
    document = await openapi_of(app_for(host(make_config(use_secure_cookies=True))))
    schemes = document["components"]["securitySchemes"]
    assert schemes["sessionCookie"]["name"] == "__Secure-authjs.session-token"
    assert "secureSessionCookie" not in schemes
    assert document["paths"]["/me"]["get"]["security"] == [{"sessionCookie": []}]
    renamed = make_config(
        cookies={"session_token": {"name": "my-session"}}, use_secure_cookies=False
    )
    document = await openapi_of(app_for(host(renamed)))
    assert document["components"]["securitySchemes"]["sessionCookie"]["name"] == "my-session"


async def test_the_paths_follow_the_mount_or_the_route() -> None:
    result = host(make_config(base_path="/auth"))
    document = await openapi_of(app_for(result, mount="/auth"))
    assert "/auth/session" in document["paths"]
    assert not any(path.startswith("/api/auth") for path in document["paths"])
    app = app_for(result, mount=None)
    app.router.routes.append(Route("/auth/{rest:path}", result.handlers.GET))
    assert "/auth/csrf" in (await openapi_of(app))["paths"]


async def test_an_app_without_the_handlers_lists_no_auth_route(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="sansio_auth"):
        document = await openapi_of(app_for(host(make_config()), mount=None))
    assert not any("auth" in path for path in document["paths"])
    assert 'app.mount("/api/auth", handlers)' in caplog.text
