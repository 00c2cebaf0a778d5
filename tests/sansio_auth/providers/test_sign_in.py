"""Every built-in provider signs in end to end against its simulated service (see ``cases``)."""

import pytest

from sansio_auth.providers.builtin import SERVICES
from tests.sansio_auth.providers.cases import case_ids, run


@pytest.mark.parametrize("provider_id", case_ids())
def test_sign_in(provider_id):
    run(provider_id)


def test_every_built_in_provider_has_a_sign_in_script():
    ids = {row.id for row in SERVICES}  # not BUILTIN_PROVIDERS: it also has Auth.js module names
    missing = sorted(ids - set(case_ids()))
    assert not missing, f"add fixtures/<id>/sign_in.json for {', '.join(missing)}"
    assert set(case_ids()) <= ids
