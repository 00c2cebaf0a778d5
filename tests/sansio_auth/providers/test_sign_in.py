"""Every built-in provider signs in end to end against its simulated service (see ``cases``)."""

import pytest

from tests.sansio_auth.providers.cases import case_ids, run


@pytest.mark.parametrize("provider_id", case_ids())
def test_sign_in(provider_id):
    run(provider_id)
