"""The authorization response parser: iss, state, error, implicit parameters, code."""

import pytest

from sansio_auth.oauth.callback import (
    AuthorizationResponseError,
    ProviderDenied,
    StateMismatch,
    parse_authorization_response,
)

ISSUER = "https://op.example"


def parse(params, state="s1", issuer=ISSUER, iss_required=False):
    return parse_authorization_response(
        params, expected_state=state, issuer=issuer, iss_required=iss_required
    )


def test_code():
    assert parse({"code": "c", "state": "s1"}).code == "c"
    assert parse({"code": "c"}, state=None).code == "c"
    assert parse({"code": "c", "state": "ignored"}, state=None).code == "c"


@pytest.mark.parametrize("params", [{"code": "c"}, {"code": "c", "state": "s2"}, {"state": 5}])
def test_state(params):
    with pytest.raises(StateMismatch):
        parse(params)


def test_iss():
    assert parse({"code": "c", "state": "s1", "iss": ISSUER}, iss_required=True).code == "c"
    with pytest.raises(AuthorizationResponseError, match="requires an `iss`"):
        parse({"code": "c", "state": "s1"}, iss_required=True)
    with pytest.raises(AuthorizationResponseError, match="not the provider's issuer"):
        parse({"code": "c", "state": "s1", "iss": ISSUER + "/"})
    assert parse({"code": "c", "state": "s1", "iss": "anything"}, issuer=None).code == "c"
    with pytest.raises(AuthorizationResponseError):  # a JSON body's null is not "absent"
        parse({"code": "c", "state": "s1", "iss": None})


def test_iss_is_checked_before_state():
    with pytest.raises(AuthorizationResponseError, match="issuer") as caught:
        parse({"code": "c", "state": "wrong", "iss": "https://evil.example"})
    assert not isinstance(caught.value, StateMismatch)


def test_provider_error_after_state():
    with pytest.raises(ProviderDenied) as caught:
        parse({"error": "access_denied", "error_description": "no", "state": "s1"})
    assert (caught.value.error, caught.value.description) == ("access_denied", "no")
    with pytest.raises(StateMismatch):
        parse({"error": "access_denied", "state": "forged"})


@pytest.mark.parametrize(
    "params",
    [
        {"state": "s1"},
        {"state": "s1", "code": ""},
        {"state": "s1", "code": ["c"]},
        {"state": "s1", "code": "c", "id_token": "x"},
        {"state": "s1", "code": "c", "access_token": "x"},
        {"state": "s1", "error": 1},
    ],
)
def test_protocol_errors(params):
    with pytest.raises(AuthorizationResponseError):
        parse(params)
