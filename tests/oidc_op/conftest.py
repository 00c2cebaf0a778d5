"""The real OpenID Provider fixture (``oidc_op``) for the tests in this directory."""

from tests.oidc_op.provider import oidc_op, oidc_op_redirect_uris

__all__ = ["oidc_op", "oidc_op_redirect_uris"]
