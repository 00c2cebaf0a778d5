"""The built-in OAuth 2.0 / OpenID Connect services: one module per service, each a row.

Each module defines ``SERVICE``, a :class:`~sansio_auth.providers.service.Service`, and
only the functions its service needs (a profile computed rather than mapped, a hook).
``make docs`` reads every module here to generate ``sansio_auth/providers/builtin.py`` and
the provider table of docs/providers.md (docs/providers.md, "Adding a built-in provider").
"""
