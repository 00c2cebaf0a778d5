"""The floor of the HTTP figures: a bare ASGI handler that answers every request with the
same small JSON, served by the same uvicorn as the auth app
(``--factory bench.bare:create_app``)."""

from __future__ import annotations

from typing import Any

BODY = b'{"ok":true}'
START = {
    "type": "http.response.start",
    "status": 200,
    "headers": [(b"content-type", b"application/json"), (b"content-length", b"11")],
}
END = {"type": "http.response.body", "body": BODY}


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answer ``{"ok":true}``; nothing else (lifespan refused, as uvicorn allows)."""
    if scope["type"] != "http":
        raise RuntimeError("the bare app serves HTTP only")
    await send(START)
    await send(END)


def create_app() -> Any:
    """The factory uvicorn calls."""
    return app
