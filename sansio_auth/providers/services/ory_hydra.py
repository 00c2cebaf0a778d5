"""Ory Hydra / Ory Network (OpenID Connect): the issuer is the server's.

Auth.js's module is ``ory-hydra``; the provider id it gives is ``hydra`` (routes
``/callback/hydra``, ``AUTH_HYDRA_ID``), so that is the id here too, and
``BUILTIN_PROVIDERS`` also lists the factory under ``ory-hydra``.
"""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="hydra",
    name="Hydra",
    type="oidc",
    factory="OryHydra",
    also_ids=("ory-hydra",),
    issuer_required="the Hydra public URL or Ory Network project URL, e.g. "
    "``https://my-project.projects.oryapis.com``",
    style=ProviderStyle(bg="#fff", text="#0F172A"),
    setup="https://www.ory.sh/docs/hydra/5min-tutorial",
    notes="Auth.js's module is `ory-hydra`, its provider id `hydra`: the callback URL is "
    "`<base>/callback/hydra` and the variables `AUTH_HYDRA_ID`/`_SECRET`/`_ISSUER`.",
)
