"""The flow driver and its steps: the plumbing every flow is written with."""

import asyncio

import pytest

from sansio_auth import Flow, Response
from sansio_auth._flow import call_adapter, emit, invoke, send_http
from sansio_auth.drivers import async_performer, sync_performer
from sansio_auth.errors import AdapterError, EventError, FlowProtocolError, Verification
from sansio_auth.events import (
    AdapterReturned,
    CallAdapter,
    CallbackReturned,
    Failed,
    HTTPResponse,
    InvokeCallback,
    Log,
    OutboundRequest,
    Respond,
    SendHTTP,
)


class Store:
    def get_user(self, user_id):
        return {"id": user_id}


STORE = Store()


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
    assert flow.pending is action
    assert isinstance(flow.send(CallbackReturned(value=7)), Respond)
    assert flow.pending is None
    assert results == [7]


def test_invoke_raises_the_failure():
    flow = flow_of(invoke("jwt", len), [])
    flow.next_action()
    with pytest.raises(Exception, match="'k'"):
        flow.send(Failed(error=KeyError("k")))


def test_call_adapter_carries_the_bound_method():
    flow = flow_of(call_adapter(STORE, "get_user", "1"), [])
    action = flow.next_action()
    assert isinstance(action, CallAdapter)
    assert (action.method, action.args) == ("get_user", ("1",))
    assert action.call() == {"id": "1"}


def test_call_adapter_wraps_failures_in_adapter_error():
    flow = flow_of(call_adapter(STORE, "get_user", "1"), [])
    flow.next_action()
    with pytest.raises(AdapterError) as caught:
        flow.send(Failed(error=ConnectionError("down")))
    assert caught.value.cause["method"] == "get_user"
    assert caught.value.fault == "adapter"


def test_call_adapter_keeps_auth_errors():
    flow = flow_of(call_adapter(STORE, "get_user"), [])
    flow.next_action()
    with pytest.raises(Verification):
        flow.send(Failed(error=Verification("used")))


def test_call_adapter_value():
    results = []
    flow = flow_of(call_adapter(STORE, "get_user"), results)
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


@pytest.mark.parametrize(
    ("step", "wrong"),
    [
        (invoke("jwt", len), AdapterReturned(value=1)),
        (call_adapter(STORE, "get_user"), CallbackReturned(value=1)),
        (send_http(OutboundRequest(method="GET", url="https://x")), CallbackReturned()),
    ],
)
def test_the_wrong_event_is_a_flow_protocol_error_and_the_flow_waits(step, wrong):
    results = []
    flow = flow_of(step, results)
    action = flow.next_action()
    with pytest.raises(FlowProtocolError, match=f"{type(action).__name__} is answered with"):
        flow.send(wrong)
    assert flow.pending is action  # not resumed: the right answer still works
    with pytest.raises(Exception, match="'k'"):
        flow.send(Failed(error=KeyError("k")))


def test_emit_only_with_a_handler_and_its_failure_is_logged():
    flow = flow_of(emit(None, "sign_in", user={}), [])
    assert isinstance(flow.next_action(), Respond)
    flow = flow_of(emit(print, "sign_in", user={}), [])
    assert flow.next_action() == InvokeCallback(
        name="events.sign_in", function=print, params={"user": {}}
    )
    logged = flow.send(Failed(error=RuntimeError("handler bug")))
    assert isinstance(logged, Log)
    assert logged.code == "EventError"
    assert isinstance(logged.error, EventError)
    assert logged.error.fault == "callback"


def test_driver_misuse():
    flow = flow_of(invoke("jwt", len), [])
    with pytest.raises(FlowProtocolError, match="next_action"):
        flow.send(CallbackReturned())
    flow.next_action()
    with pytest.raises(FlowProtocolError, match="send"):
        flow.next_action()
    flow.send(CallbackReturned())
    with pytest.raises(FlowProtocolError, match="already responded"):
        flow.send(CallbackReturned())


def steps():
    """A flow using every action kind."""
    results = []

    def gen():
        results.append(
            (
                yield from invoke(
                    "authorize", lambda credentials: credentials, credentials=1, request=2
                )
            )
        )
        results.append((yield from call_adapter(STORE, "get_user", "9")))
        results.append((yield from send_http(OutboundRequest(method="GET", url="https://op"))))
        yield Log(level="warn", code="w")
        yield Respond(response=Response(status=204))

    return Flow(gen()), results


def test_the_sync_driver_answers_every_action_by_the_rules():
    flow, results = steps()
    logged = []
    perform = sync_performer(send_http=lambda request: HTTPResponse(status=200), log=logged.append)
    assert flow.run_sync(perform).status == 204
    assert results == [1, {"id": "9"}, HTTPResponse(status=200)]
    assert [entry.code for entry in logged] == ["w"]


def test_the_async_driver_awaits_what_is_awaitable():
    async def authorize(credentials):
        return credentials

    async def send(request):
        return HTTPResponse(status=201)

    results = []

    def gen():
        results.append((yield from invoke("authorize", authorize, credentials=5, request=0)))
        results.append((yield from send_http(OutboundRequest(method="GET", url="https://op"))))
        yield Respond(response=Response())

    perform = async_performer(send_http=send, log=print)
    asyncio.run(Flow(gen()).run(perform))
    assert results == [5, HTTPResponse(status=201)]


def test_the_sync_driver_refuses_an_async_callback_without_wait():
    async def authorize():
        return 1

    perform = sync_performer(log=print)
    event = perform(InvokeCallback(name="authorize", function=authorize, params={}))
    assert isinstance(event, Failed)
    assert "no `wait`" in str(event.error)
    perform = sync_performer(log=print, wait=asyncio.run)
    assert perform(InvokeCallback(name="authorize", function=authorize, params={})) == (
        CallbackReturned(value=1)
    )


def test_keyword_filtering_is_the_engines():
    def named(credentials):
        return credentials

    def everything(**params):
        return sorted(params)

    call = InvokeCallback(name="authorize", function=named, params={"credentials": 1, "request": 2})
    assert call.call() == 1
    call = InvokeCallback(name="x", function=everything, params={"a": 1, "b": 2})
    assert call.call() == ["a", "b"]


def test_an_answered_flow_responds_first_and_performs_nothing():
    response = Response(status=204)
    flow = Flow.answered(response)
    assert flow.answer is response
    assert flow.run_sync(lambda action: pytest.fail(f"performed {action}")) is response
    again = Flow.answered(response)
    assert again.next_action() == Respond(response=response)
    with pytest.raises(FlowProtocolError, match="already responded"):
        again.send(CallbackReturned())
    assert asyncio.run(Flow.answered(response).run(None)) is response  # type: ignore[arg-type]


def stoppable(closed: list[bool]):
    """A flow that asks for one callback and notes whether it was stopped."""

    def gen():
        try:
            yield InvokeCallback(name="jwt", function=len, params={})
            yield Respond(response=Response())
        except GeneratorExit:
            closed.append(True)
            raise

    return Flow(gen())


def test_a_flow_whose_performer_raises_is_closed_at_once():
    def perform(action):
        raise RuntimeError("the performer broke")

    closed: list[bool] = []
    flow = stoppable(closed)
    with pytest.raises(RuntimeError, match="broke"):
        flow.run_sync(perform)
    assert closed == [True]
    assert flow.pending is None

    async def perform_async(action):
        raise asyncio.CancelledError

    closed.clear()
    flow = stoppable(closed)
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(flow.run(perform_async))
    assert closed == [True]
