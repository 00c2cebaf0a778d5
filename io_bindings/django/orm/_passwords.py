"""The Django ORM store's password scheme: Django's own hashers (``PASSWORD_HASHERS``), the
hash in ``user.password``, so that ``set_password``/``check_password`` and the ``Password``
provider read and write one and the same value.

A check is Django's ``check_password(password, encoded, setter)``: a correct password whose
hash is not of the preferred hasher (``PASSWORD_HASHERS[0]``) or of older parameters asks
for a new hash (``needs_rehash``), which :meth:`DjangoHashers.hash` makes with the preferred
hasher, as Django's upgrade on sign-in does. No hash (an unknown address, an unusable
password) costs one hash of the preferred hasher, as Django's ``ModelBackend`` makes it; the
runtimes hold every failed check to the costliest kind (:mod:`io_bindings._password_timing`).
A hash Django's settings cannot read but the engine can (argon2id in PHC format, or a
Django format whose hasher is no longer listed) is checked by the engine and replaced.
"""

from __future__ import annotations

from django.contrib.auth.hashers import check_password, identify_hasher, make_password

from sansio_auth.passwords import Argon2Params, Checked, normalize, verify_password


class DjangoHashers:
    """Django's password hashers as the engine's
    :class:`~sansio_auth.passwords.PasswordHasher` (the store's ``password_hasher``)."""

    def hash(self, password: str, salt: bytes, params: Argon2Params) -> str:
        """``make_password(password)``: the preferred hasher, with its own salt and cost
        (as ``user.set_password``; the engine's ``salt`` and argon2id ``params`` are not
        Django's)."""
        return make_password(password)

    def verify(self, password: str, stored: str | None, params: Argon2Params) -> Checked:
        """Django's ``check_password``; a hash it cannot read, the engine's reading."""
        if stored is not None and _unknown_to_django(stored):
            checked = verify_password(password, stored, params)
            return Checked(valid=checked.valid, needs_rehash=checked.valid)
        outdated: list[str] = []
        valid = check_password(password, stored or "", outdated.append)  # "": Django's dummy work
        normalized = normalize(password)  # a hash the engine made is of the NFKC form
        if not valid and stored is not None and normalized != password:
            valid = check_password(normalized, stored)
            outdated.append("hashed as typed from now on, as Django does")
        return Checked(valid=valid, needs_rehash=valid and bool(outdated))


def _unknown_to_django(stored: str) -> bool:
    if stored.startswith("!"):  # Django's unusable password
        return False
    try:
        identify_hasher(stored)
    except ValueError:
        return True
    return False
