"""Medium (OAuth 2.0; Medium takes no new integrations)."""

from ..oauth import Hooks
from ..quirks import scope_text
from ..service import ProfileMap, Service


def created(status: int) -> int:
    """Medium answers a token request ``201 Created``: the ``200`` OAuth 2.0 means."""
    return 200 if status == 201 else status


SERVICE = Service(
    id="medium",
    name="Medium",
    type="oauth",
    factory="Medium",
    authorization="https://medium.com/m/oauth/authorize",
    token="https://api.medium.com/v1/tokens",
    userinfo="https://api.medium.com/v1/me",
    scope="basicProfile",
    checks=("pkce", "state"),
    profile=ProfileMap(id="data.id", name="data.name", image="data.imageUrl"),
    hooks=Hooks(token_response=scope_text, token_status=created),
    setup="https://github.com/Medium/medium-api-docs#22-browser-based-authentication",
    notes="Medium gives no e-mail, and takes no new API integrations (existing ones keep "
    "working). Its token endpoint answers `201` with `scope` as an array.",
    differs="Follows Medium's documentation where Auth.js cannot sign in: the `201` token "
    "answer is accepted, its `scope` array read, and `state` is sent (Medium requires it).",
)
