"""Auth.js's short pages: the sign-out confirmation, "check your email", the error page, and
ours for a rate limit's refusal."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from ..config import Theme
from ..i18n import N_, Translator
from ._shell import debug_hint, hidden, host_of, link_button, shell


def sign_out_page(context: Mapping[str, Any], theme: Theme, _: Translator) -> str:
    """The sign-out confirmation: a form that posts back to ``action_url``."""
    body = (
        f"<h1>{escape(_('Signout'))}</h1>"
        f"<p>{escape(_('Are you sure you want to sign out?'))}</p>"
        f'<form action="{escape(context["action_url"])}" method="POST">'
        f"{hidden('csrfToken', context['csrf_token'])}"
        f'<button type="submit">{escape(_("Sign out"))}</button></form>'
    )
    return shell(_("Sign Out"), body, theme, _)


VERIFY_REQUEST_TEXTS = {
    "verify-email": N_("A link to verify your email address has been sent to it."),
    "reset": N_(
        "If an account uses this address, a link to choose a new password has been sent to it."
    ),
}
"""What the 'check your email' page says for each ``type`` of the account e-mails."""
SIGN_IN_LINK_SENT = N_("A sign in link has been sent to your email address.")


def verify_request_page(context: Mapping[str, Any], theme: Theme, _: Translator) -> str:
    """'Check your email' (for ``kind``: a sign-in link by default), with a link back."""
    text = VERIFY_REQUEST_TEXTS.get(context["kind"] or "", SIGN_IN_LINK_SENT)
    site = context["site_url"]
    body = (
        f"<h1>{escape(_('Check your email'))}</h1><p>{escape(_(text))}</p>"
        f"{link_button(site, host_of(site))}"
    )
    return shell(_("Verify Request"), body, theme, _)


ERROR_PAGES: Mapping[str, tuple[int, str, str]] = {
    "Configuration": (
        500,
        N_("Server error"),
        N_(
            "There is a problem with the server configuration. "
            "Check the server logs for more information."
        ),
    ),
    "AccessDenied": (403, N_("Access Denied"), N_("You do not have permission to sign in.")),
    "Verification": (
        403,
        N_("Unable to sign in"),
        N_(
            "The sign in link is no longer valid. "
            "It may have been used already or it may have expired."
        ),
    ),
    "WebAuthnVerificationError": (
        200,
        N_("Unable to sign in"),
        N_("The passkey could not be verified. Try again, or use another way to sign in."),
    ),
}
"""The error page's status, heading and text for each ``?error=`` (Auth.js's for its own)."""
_LINK_TO_SIGN_IN = frozenset({"AccessDenied", "Verification", "WebAuthnVerificationError"})
DEFAULT_ERROR_PAGE = (200, N_("Error"), N_("An error occurred while signing in."))


def error_status(error: str | None) -> int:
    """The status of the error page for ``error``: 500, 403 or 200."""
    return ERROR_PAGES.get(error or "", DEFAULT_ERROR_PAGE)[0]


def error_page(context: Mapping[str, Any], theme: Theme, _: Translator) -> str:
    """The error page for ``error``; with ``hint`` (debug only), the likely cause and fix
    under it; a link to sign in again, or back to the site."""
    error = context["error"]
    _status, heading, message = ERROR_PAGES.get(error or "", DEFAULT_ERROR_PAGE)
    if error in _LINK_TO_SIGN_IN:
        link = link_button(context["signin_url"], _("Sign in"))
    else:
        link = link_button(context["site_url"], host_of(context["site_url"]))
    body = (
        f"<h1>{escape(_(heading))}</h1><p>{escape(_(message))}</p>"
        f"{debug_hint(context['hint'])}{link}"
    )
    return shell(_("Error"), body, theme, _)


def rate_limited_page(context: Mapping[str, Any], theme: Theme, _: Translator) -> str:
    """'Too many attempts': when to try again, and a link back to the sign-in page."""
    minutes = max(1, -(-context["retry_after"] // 60))
    wait = _.plural(
        "Sign-in is paused for this account or network. Try again in {n} minute.",
        "Sign-in is paused for this account or network. Try again in {n} minutes.",
        minutes,
    )
    body = (
        f"<h1>{escape(_('Too many attempts'))}</h1><p>{escape(wait)}</p>"
        f"{link_button(context['signin_url'], _('Sign in'))}"
    )
    return shell(_("Too Many Attempts"), body, theme, _)
