"""Azure AD: Microsoft Entra ID under Auth.js's older id and name (``azure-ad``)."""

import dataclasses

from .microsoft_entra_id import SERVICE as ENTRA_ID
from .microsoft_entra_id import EntraRecord

SERVICE = dataclasses.replace(
    ENTRA_ID,
    id="azure-ad",
    name="Azure Active Directory",
    factory="AzureAD",
    record=EntraRecord,
    notes="Microsoft Entra ID under its former name: the same service, options and behaviour "
    "(see Microsoft Entra ID), with `AUTH_AZURE_AD_ID`/`_SECRET`/`_ISSUER` and the callback "
    "URL `<base>/callback/azure-ad`.",
)
