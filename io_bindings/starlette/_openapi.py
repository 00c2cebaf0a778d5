"""The auth routes in a FastAPI app's OpenAPI document, made from the engine's route table
(:data:`sansio_auth._routes.ROUTES`: paths, methods, CSRF, bodies, answers) under the path
the ``handlers`` are mounted at; and the session cookie's other name (``__Secure-`` over
https) as an alternative to the security scheme the dependencies declare."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from starlette.routing import BaseRoute, Mount, Route

from sansio_auth._routes import ROUTES
from sansio_auth._routes import Route as AuthRoute

from ._dependencies import SCHEME, SECURE_SCHEME, cookie_names

if TYPE_CHECKING:
    from ._asgi import Handlers

Schema = dict[str, Any]
TAG = "auth"
logger = logging.getLogger("sansio_auth")
RETURN_REDIRECT = {
    "name": "X-Auth-Return-Redirect",
    "in": "header",
    "required": False,
    "schema": {"type": "string"},
    "description": 'Any value: answer `200 {"url": ...}` instead of a `302` redirect.',
}
BAD_REQUEST = {
    "description": 'Not an auth route, or a malformed request: the JSON string "Bad request."',
    "content": {"application/json": {"schema": {"type": "string"}}},
}
URL_ANSWER = {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}


def add_auth_routes(app: Any, handlers: Handlers) -> None:
    """Make ``app.openapi()`` (FastAPI's) list the auth routes wherever ``handlers`` is
    mounted in ``app``, and the session cookie's ``__Secure-`` name where it applies."""
    original = app.openapi

    def openapi() -> Schema:
        fresh = app.openapi_schema is None
        schema: Schema = original()
        if fresh:
            extend(schema, app.routes, handlers)
        return schema

    app.openapi_schema = None  # made again, with the routes
    app.openapi = openapi


def extend(schema: Schema, routes: Iterable[BaseRoute], handlers: Handlers) -> None:
    """Add the auth routes under each place ``routes`` serve ``handlers`` at to ``schema``."""
    prefixes = list(mount_paths(routes, handlers))
    if not prefixes:
        logger.warning(
            "[auth][warn] add_to_openapi: the app does not serve the auth handlers, so the "
            'OpenAPI document lists no auth route: app.mount("/api/auth", handlers)'
        )
    paths = schema.setdefault("paths", {})
    for prefix in prefixes:
        for path, operations in route_paths(prefix).items():
            paths.setdefault(path, {}).update(operations)
    if prefixes and not any(tag.get("name") == TAG for tag in schema.get("tags", ())):
        schema.setdefault("tags", []).append(
            {"name": TAG, "description": "Sign-in, session and account routes (sansio-auth)"}
        )
    _add_secure_cookie(schema, handlers)


def mount_paths(routes: Iterable[BaseRoute], handlers: Handlers, prefix: str = "") -> Iterator[str]:
    """Where ``routes`` (an app's, and those of the apps and routers they mount) serve
    ``handlers``: a ``Mount`` of it, or a ``Route`` to its ``GET``/``POST`` endpoint ending
    with ``{rest:path}``."""
    for route in routes:
        if isinstance(route, Mount):
            if route.app is handlers:
                yield prefix + route.path
            else:
                yield from mount_paths(route.routes, handlers, prefix + route.path)
        elif isinstance(route, Route) and getattr(route.endpoint, "__self__", None) is handlers:
            yield prefix + route.path.rsplit("/{", 1)[0]


def route_paths(prefix: str) -> dict[str, dict[str, Schema]]:
    """The OpenAPI path items of every auth route under ``prefix``."""
    paths: dict[str, dict[str, Schema]] = {}
    for (method, action), route in ROUTES.items():
        for path in _spellings(route.path):
            url = f"{prefix}/{path}".replace("<provider>", "{provider}")
            paths.setdefault(url, {})[method.lower()] = operation(method, action, path, route)
    return paths


def _spellings(path: str) -> list[str]:
    """``signin[/<provider>]`` → ``signin`` and ``signin/<provider>``."""
    if "[" not in path:
        return [path]
    head, _, optional = path.partition("[")
    return [head, head + optional.rstrip("]")]


def operation(method: str, action: str, path: str, route: AuthRoute) -> Schema:
    """One route's OpenAPI operation."""
    name = path.replace("<provider>", "provider").replace("/", "_").replace("-", "_")
    parameters: list[Schema] = []
    if "<provider>" in path:
        text = {"type": "string"}
        parameters.append({"name": "provider", "in": "path", "required": True, "schema": text})
    if route.answers == "redirect":
        parameters.append(RETURN_REDIRECT)
    found: Schema = {
        "tags": [TAG],
        "summary": route.summary.replace("`", ""),
        "description": f"{route.summary}.\n\nCSRF token: {route.csrf or 'no'}.",
        "operationId": f"auth_{method.lower()}_{name}",
        "responses": {**_answers(route), "400": BAD_REQUEST},
    }
    if parameters:
        found["parameters"] = parameters
    if method == "POST":
        found["requestBody"] = _body(route)
    return found


def _body(route: AuthRoute) -> Schema:
    """A POST body: the route's fields (form or JSON), ``csrfToken`` as its row says."""
    properties: dict[str, Schema] = {}
    required = []
    if route.csrf and not route.csrf.startswith("no"):
        properties["csrfToken"] = {
            "type": "string", "description": "The token of `GET csrf` (its cookie too)"
        }  # fmt: skip
        if route.csrf.startswith("yes"):
            required.append("csrfToken")
    for field in route.fields:
        properties[field] = {"type": "string"}
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return {
        "required": bool(required),
        "content": {
            "application/x-www-form-urlencoded": {"schema": schema},
            "application/json": {"schema": schema},
        },
    }


def _answers(route: AuthRoute) -> dict[str, Schema]:
    if route.answers == "json":
        return {"200": {"description": "JSON", "content": {"application/json": {"schema": {}}}}}
    if route.answers == "empty":
        return {"200": {"description": "Done (no body)"}}
    if route.answers == "page":
        html = {"text/html": {"schema": {"type": "string"}}}
        return {"200": {"description": "An HTML page", "content": html}}
    to_script = "with `X-Auth-Return-Redirect`"
    if route.json_redirects:
        to_script += " or a JSON request"
    return {
        "302": {
            "description": "Redirects (`Location`) to where the browser goes next",
            "headers": {"Location": {"schema": {"type": "string"}}},
        },
        "200": {
            "description": f'{to_script[0].upper()}{to_script[1:]}: `{{"url": ...}}`',
            "content": {"application/json": {"schema": URL_ANSWER}},
        },
    }


def _add_secure_cookie(schema: Schema, handlers: Handlers) -> None:
    """Where the cookie's name depends on the request, the ``__Secure-`` one as an
    alternative on every operation that names the session cookie's scheme."""
    name, other = cookie_names(handlers.current)
    schemes = schema.get("components", {}).get("securitySchemes", {})
    if other is None or SCHEME not in schemes:
        return
    schemes[SECURE_SCHEME] = {
        "type": "apiKey",
        "in": "cookie",
        "name": other,
        "description": f"The session cookie over https (`{name}` over http)",
    }
    for item in schema.get("paths", {}).values():
        for found in item.values():
            security = found.get("security") if isinstance(found, dict) else None
            if security and {SCHEME: []} in security and {SECURE_SCHEME: []} not in security:
                security.append({SECURE_SCHEME: []})
