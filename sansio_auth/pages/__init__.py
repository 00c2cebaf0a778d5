"""The built-in HTML pages, each drawn from a :class:`~sansio_auth.http.Page`: its name and
the plain data it shows (its context, listed in ``docs/reference/pages.md``).

:func:`render` draws a page in the theme and the language of a
:class:`~sansio_auth.i18n.Translator`; every answer that shows a built-in page also carries
the :class:`~sansio_auth.http.Page`, so an adapter can render a template of its own from the
same data. Every interpolated value is escaped; colours and image URLs are also checked so
that a theme value cannot break out of its attribute.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..config import Theme
from ..http import Page
from ..i18n import Translator
from . import accounts, outcomes, security, sign_in, two_factor
from ._shell import debug_hint as debug_hint
from ._shell import safe_color as safe_color
from ._webauthn_script import WEBAUTHN_SCRIPT as WEBAUTHN_SCRIPT
from .outcomes import error_status as error_status
from .sign_in import sign_in_context as sign_in_context
from .sign_in import sign_in_page as sign_in_page

Renderer = Callable[[Mapping[str, Any], Theme, Translator], str]

RENDERERS: Mapping[str, Renderer] = {
    "signin": sign_in.sign_in_page,
    "signout": outcomes.sign_out_page,
    "verify-request": outcomes.verify_request_page,
    "error": outcomes.error_page,
    "rate-limited": outcomes.rate_limited_page,
    "security": security.security_page,
    "signup": accounts.sign_up_page,
    "forgot-password": accounts.forgot_page,
    "reset-password": accounts.reset_page,
    "change-password": accounts.change_password_page,
    "change-email": accounts.change_email_page,
    "notice": accounts.notice_page,
    "two-factor": two_factor.challenge_page,
    "two-factor-setup": two_factor.enrol_page,
    "two-factor-manage": two_factor.manage_page,
    "recovery-codes": two_factor.recovery_codes_page,
}
"""Each built-in page by its name: the function that draws it from its context."""


def render(page: Page, theme: Theme, translator: Translator) -> str:
    """The HTML of ``page`` in ``theme``, in the language of ``translator``."""
    return RENDERERS[page.name](page.context, theme, translator)
