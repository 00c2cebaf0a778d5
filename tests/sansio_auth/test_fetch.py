"""Outbound requests: a transport failure is a response error that names no secret."""

import pytest

from sansio_auth.events import Failed, OutboundRequest, SendHTTP
from sansio_auth.fetch import ProviderResponseError, send


def test_a_transport_failure_names_the_url_without_its_query():
    url = "https://api.weixin.qq.com/sns/userinfo?access_token=SECRET-TOKEN&openid=OPENID"
    flow = send(OutboundRequest(method="GET", url=url), "userinfo")
    action = next(flow)
    assert isinstance(action, SendHTTP)
    assert action.request.url == url
    with pytest.raises(ProviderResponseError) as caught:
        flow.send(Failed(error=TimeoutError("read timed out")))
    message = str(caught.value)
    assert "the userinfo request to https://api.weixin.qq.com/sns/userinfo failed" in message
    assert "TimeoutError" in message
    assert "SECRET-TOKEN" not in message
    assert "openid" not in message
