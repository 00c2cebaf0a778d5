"""NetSuite (OAuth 2.0): an account's own domains, the user from a RESTlet of the account."""

from typing import Any

from ...errors import Configuration
from .._base import ProviderStyle
from ..oauth import Hooks, merge_options
from ..service import ProfileMap, Service


def account(options: dict[str, Any]) -> dict[str, Any]:
    """``account_id="TSTDRV1234567"``: the account's authorization and token URLs.

    NetSuite has no userinfo endpoint: ``userinfo`` is the external URL of a RESTlet (or
    Suitelet) of the account that answers the current user (``runtime.getCurrentUser()``).
    """
    options = dict(options)
    account_id = options.pop("account_id", None)
    if not isinstance(account_id, str) or not account_id.strip():
        raise Configuration(
            "NetSuite needs `account_id`, the account id of your NetSuite domains "
            "(e.g. NetSuite(account_id='TSTDRV1234567', userinfo='https://...restlet.nl?...'))"
        )
    if not options.get("userinfo"):
        raise Configuration(
            "NetSuite needs `userinfo`: the external URL of a RESTlet that answers the "
            "current user (id, name, email) — NetSuite has no userinfo endpoint"
        )
    host = account_id.strip().lower().replace("_", "-")
    for key, url in (
        ("authorization", f"https://{host}.app.netsuite.com/app/login/oauth2/authorize.nl"),
        ("token", f"https://{host}.suitetalk.api.netsuite.com/services/rest/auth/oauth2/v1/token"),
    ):
        options[key] = merge_options({"url": url}, options.get(key))
    return options


SERVICE = Service(
    id="netsuite",
    name="NetSuite",
    type="oauth",
    factory="NetSuite",
    scope="restlets rest_webservices",
    checks=("state",),
    profile=ProfileMap(id="id", name="name", email="email"),
    style=ProviderStyle(bg="#181a1b", text="#fbfbfb"),
    hooks=Hooks(options=account),
    setup="https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_157771281570.html",
    notes="`NetSuite(account_id=..., userinfo=...)`: the account id names the account's "
    "domains, and `userinfo` is the external URL of a RESTlet of the account that returns "
    "`runtime.getCurrentUser()`'s `id`, `name` and `email` (deployed for all roles).",
    differs="`account_id` (Auth.js: `accountID`) and `userinfo` are required at start-up "
    "(Auth.js builds `https://undefined.app.netsuite.com/...` without them).",
)
