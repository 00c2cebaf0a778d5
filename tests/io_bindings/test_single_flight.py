"""The binding's single flight: one request per key at a time, its response shared with
those that waited or come within ``keep`` seconds; failures are not shared."""

from __future__ import annotations

import anyio
import pytest

from io_bindings._single_flight import SingleFlight, key_of
from sansio_auth.events import (
    AdapterReturned,
    CallAdapter,
    Event,
    Failed,
    HTTPResponse,
    Log,
    OutboundRequest,
    SendHTTP,
)

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


class Clock:
    now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_concurrent_requests_with_one_key_make_one_request() -> None:
    flight, calls = SingleFlight(Clock()), []
    answers: dict[str, list[Event]] = {"k": [], "other": []}

    async def one(key: str) -> None:
        async def perform() -> Event:
            calls.append(key)
            await anyio.sleep(0.02)
            return HTTPResponse(status=200, body=f"{key}-{calls.count(key)}".encode())

        answers[key].append(await flight.run(key, perform))

    async with anyio.create_task_group() as group:
        for _ in range(10):
            group.start_soon(one, "k")
        group.start_soon(one, "other")
    assert sorted(calls) == ["k", "other"]  # one request per key
    assert len(answers["k"]) == 10
    assert {a.body for a in answers["k"] if isinstance(a, HTTPResponse)} == {b"k-1"}
    assert flight._locks == {}  # nothing left behind


async def test_failures_are_not_shared_and_answers_expire() -> None:
    clock = Clock()
    flight = SingleFlight(clock, keep=30)
    results: list[Event] = [Failed(error=TimeoutError()), HTTPResponse(status=200, body=b"a")]
    results.append(HTTPResponse(status=200, body=b"b"))

    async def perform() -> Event:
        return results.pop(0)

    assert isinstance(await flight.run("k", perform), Failed)
    assert await flight.run("k", perform) == HTTPResponse(status=200, body=b"a")
    clock.now += 30
    assert await flight.run("k", perform) == HTTPResponse(status=200, body=b"a")  # kept
    clock.now += 1
    assert await flight.run("k", perform) == HTTPResponse(status=200, body=b"b")  # expired


async def test_adapter_answers_are_shared_too() -> None:
    """Extending one database session: the calls that waited get the first one's answer."""
    flight, calls = SingleFlight(Clock()), []

    async def perform() -> Event:
        calls.append(1)
        await anyio.sleep(0.02)
        return AdapterReturned(value={"session_token": "t", "n": len(calls)})

    answers: list[Event] = []

    async def one() -> None:
        answers.append(await flight.run("update_session:abc", perform))

    async with anyio.create_task_group() as group:
        for _ in range(5):
            group.start_soon(one)
    assert calls == [1]
    assert answers == [AdapterReturned(value={"session_token": "t", "n": 1})] * 5


def test_keys_of_actions() -> None:
    request = OutboundRequest(method="POST", url="https://op.example/token")
    call = CallAdapter(method="update_session", function=print, args=(), single_flight="k")
    assert key_of(SendHTTP(request=request, single_flight="r")) == "r"
    assert key_of(SendHTTP(request=request)) is None
    assert key_of(call) == "k"
    assert key_of(Log(level="warn", code="x")) is None
