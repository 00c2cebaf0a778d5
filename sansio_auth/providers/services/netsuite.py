"""NetSuite (OAuth 2.0): an account's own domains, the user from a RESTlet of the account."""

from dataclasses import dataclass, replace

from ...errors import Configuration
from .._base import ProviderStyle
from ..oauth import OAuthProvider
from ..service import ProfileMap, Service

ACCOUNT = "{account}"
"""In the endpoint URLs, the account's domain label (``account_id`` in lower case, ``_`` as
``-``: ``1234567_SB1`` is ``1234567-sb1``)."""


@dataclass(frozen=True, kw_only=True)
class NetSuiteRecord(OAuthProvider):
    """NetSuite's own option (the record type ``NetSuiteProvider`` builds on)."""

    account_id: str | None = None
    """The NetSuite account id (``TSTDRV1234567``, ``1234567_SB1``; Auth.js: ``accountID``)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.account_id:
            return
        label = self.account_id.strip().lower().replace("_", "-")
        for name in ("authorization", "token"):
            endpoint = getattr(self, name)
            if endpoint.url is not None and ACCOUNT in endpoint.url:
                url = endpoint.url.replace(ACCOUNT, label)
                object.__setattr__(self, name, replace(endpoint, url=url))

    def check(self) -> None:
        """Also: the account id, and a ``userinfo`` URL (NetSuite has no userinfo endpoint)."""
        if not self.account_id:
            raise Configuration(
                f"provider {self.id!r} needs `account_id`, the NetSuite account id "
                "(NetSuite(account_id='TSTDRV1234567', userinfo='https://...restlet.nl?...'))"
            )
        if not self.userinfo.url:
            raise Configuration(
                f"provider {self.id!r} needs `userinfo`: the external URL of a RESTlet of the "
                "account that answers the current user (id, name, email)"
            )
        super().check()


SERVICE = Service(
    id="netsuite",
    name="NetSuite",
    type="oauth",
    factory="NetSuite",
    record=NetSuiteRecord,
    authorization=f"https://{ACCOUNT}.app.netsuite.com/app/login/oauth2/authorize.nl",
    token=f"https://{ACCOUNT}.suitetalk.api.netsuite.com/services/rest/auth/oauth2/v1/token",
    scope="restlets rest_webservices",
    checks=("state",),
    profile=ProfileMap(id="id", name="name", email="email"),
    style=ProviderStyle(bg="#181a1b", text="#fbfbfb"),
    setup="https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_157771281570.html",
    notes="`NetSuite(account_id=..., userinfo=...)`: the account id names the account's "
    "domains, and `userinfo` is the external URL of a RESTlet of the account that returns "
    "`runtime.getCurrentUser()`'s `id`, `name` and `email` (deployed for all roles). "
    "The `state` check only.",
    differs="`account_id` (Auth.js: `accountID`) and `userinfo` are required at start-up "
    "(Auth.js builds `https://undefined.app.netsuite.com/...` without them); a sandbox id "
    "(`1234567_SB1`) becomes its domain label (`1234567-sb1`).",
)
