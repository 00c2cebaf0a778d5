"""The flow driver and its steps: the plumbing every flow is written with."""

import pytest

from sansio_auth import Flow, Response
from sansio_auth._flow import call_adapter, emit, invoke, send_http
from sansio_auth.errors import AdapterError, Verification
from sansio_auth.events import (
    AdapterReturned,
    CallAdapter,
    CallbackReturned,
    EmitEvent,
    Failed,
    HTTPResponse,
    InvokeCallback,
    OutboundRequest,
    Respond,
    SendHTTP,
)


def flow_of(step, results):
    def gen():
        value = yield from step
        results.append(value)
        yield Respond(response=Response())

    return Flow(gen())


def test_invoke_returns_the_value():
    results = []
    flow = flow_of(invoke("jwt", len, token={}), results)
    action = flow.next_action()
    assert action == InvokeCallback(name="jwt", function=len, params={"token": {}})
    assert isinstance(flow.send(CallbackReturned(value=7)), Respond)
    assert results == [7]


def test_invoke_raises_the_failure():
    flow = flow_of(invoke("jwt", len), [])
    flow.next_action()
    with pytest.raises(KeyError):
        flow.send(Failed(error=KeyError("k")))


def test_call_adapter_wraps_failures_in_adapter_error():
    flow = flow_of(call_adapter("get_user", "1"), [])
    assert flow.next_action() == CallAdapter(method="get_user", args=("1",))
    with pytest.raises(AdapterError) as caught:
        flow.send(Failed(error=ConnectionError("down")))
    assert caught.value.cause["method"] == "get_user"


def test_call_adapter_keeps_auth_errors():
    flow = flow_of(call_adapter("use_verification_token"), [])
    flow.next_action()
    with pytest.raises(Verification):
        flow.send(Failed(error=Verification("used")))


def test_call_adapter_value():
    results = []
    flow = flow_of(call_adapter("get_user"), results)
    flow.next_action()
    flow.send(AdapterReturned(value={"id": "1"}))
    assert results == [{"id": "1"}]


def test_send_http():
    results = []
    request = OutboundRequest(method="GET", url="https://op.example/.well-known")
    flow = flow_of(send_http(request), results)
    assert flow.next_action() == SendHTTP(request=request)
    flow.send(HTTPResponse(status=200, body=b"{}"))
    assert results[0].status == 200


def test_the_wrong_event_is_a_type_error():
    flow = flow_of(invoke("jwt", len), [])
    flow.next_action()
    with pytest.raises(TypeError, match="expected CallbackReturned"):
        flow.send(AdapterReturned(value=1))


def test_emit_only_with_a_handler():
    flow = flow_of(emit(None, "sign_in", user={}), [])
    assert isinstance(flow.next_action(), Respond)
    flow = flow_of(emit(print, "sign_in", user={}), [])
    assert flow.next_action() == EmitEvent(name="sign_in", message={"user": {}})


def test_driver_misuse():
    flow = flow_of(invoke("jwt", len), [])
    with pytest.raises(RuntimeError, match="next_action"):
        flow.send(CallbackReturned())
    flow.next_action()
    with pytest.raises(RuntimeError, match="send"):
        flow.next_action()
    flow.send(CallbackReturned())
    with pytest.raises(RuntimeError, match="already responded"):
        flow.send(CallbackReturned())
