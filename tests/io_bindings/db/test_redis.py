"""What only the Redis adapter does: the key layout, TTLs, key-safety rules."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
import redis

from io_bindings.db.redis import RedisAdapter

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

NOW = datetime.now(UTC)


@pytest.fixture
def prefix() -> str:
    return f"test:{uuid.uuid4().hex}:"


@pytest.fixture
def client(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url, decode_responses=True)


@pytest.fixture
async def adapter(redis_url: str, prefix: str) -> AsyncIterator[RedisAdapter]:
    async with RedisAdapter(redis_url, key_prefix=prefix) as opened:
        yield opened


def keys(client: redis.Redis, prefix: str) -> set[str]:
    return {key[len(prefix) :] for key in client.scan_iter(f"{prefix}*")}


async def test_the_key_layout(adapter: RedisAdapter, client: redis.Redis, prefix: str) -> None:
    user = await adapter.create_user({"id": "u1", "email": "a@b.c", "email_verified": None})
    await adapter.link_account(
        {"user_id": "u1", "type": "oauth", "provider": "github", "provider_account_id": "7"}
    )
    await adapter.create_session(
        {"session_token": "s1", "user_id": "u1", "expires": NOW + timedelta(days=1)}
    )
    await adapter.create_verification_token(
        {"identifier": "a@b.c", "token": "abc", "expires": NOW + timedelta(hours=1)}
    )
    assert keys(client, prefix) == {
        "user:u1",
        "user:email:a@b.c",
        "user:account:github:7",
        "user:by-user-id:account:u1",
        "user:session:s1",
        "user:by-user-id:session:u1",
        "user:token:a@b.c:abc",
    }
    assert client.get(f"{prefix}user:email:a@b.c") == "u1"
    assert user["id"] == "u1"

    assert await adapter.delete_user("u1") is not None
    assert keys(client, prefix) == {"user:token:a@b.c:abc"}


async def test_sessions_and_tokens_expire_with_their_keys(
    adapter: RedisAdapter, client: redis.Redis, prefix: str
) -> None:
    await adapter.create_user({"id": "u1", "email": None, "email_verified": None})
    in_a_day = datetime.now(UTC) + timedelta(days=1)
    await adapter.create_session({"session_token": "s1", "user_id": "u1", "expires": in_a_day})
    await adapter.create_verification_token(
        {"identifier": "a@b.c", "token": "abc", "expires": in_a_day}
    )
    for key in ("user:session:s1", "user:token:a@b.c:abc"):
        ttl = client.pttl(prefix + key)
        assert 86_400_000 - 60_000 < ttl <= 86_400_000
    assert client.pttl(prefix + "user:u1") == -1

    in_a_week = in_a_day + timedelta(days=6)
    await adapter.update_session({"session_token": "s1", "expires": in_a_week})
    assert client.pttl(prefix + "user:session:s1") > 6 * 86_400_000

    past = datetime.now(UTC) - timedelta(seconds=1)
    await adapter.create_session({"session_token": "s2", "user_id": "u1", "expires": past})
    assert await adapter.get_session_and_user("s2") is None
    await adapter.create_verification_token({"identifier": "x", "token": "y", "expires": past})
    assert await adapter.use_verification_token("x", "y") is None


async def test_keys_cannot_be_confused(adapter: RedisAdapter) -> None:
    """':' separates key parts, so the parts that could hold one are refused or replaced."""
    user = await adapter.create_user(
        {"id": "email:a@b.c", "email": "a@b.c", "email_verified": None}
    )
    assert ":" not in user["id"]
    assert await adapter.get_user("email:a@b.c") is None
    with pytest.raises(ValueError, match="without ':'"):
        await adapter.create_verification_token(
            {"identifier": "a", "token": "b:c", "expires": NOW + timedelta(hours=1)}
        )
    await adapter.create_verification_token(
        {"identifier": "a:b", "token": "c", "expires": NOW + timedelta(hours=1)}
    )
    assert await adapter.use_verification_token("a", "b:c") is None
    assert await adapter.use_verification_token("a:b", "c") is not None
    account = {
        "user_id": user["id"],
        "type": "oauth",
        "provider": "a:b",
        "provider_account_id": "c",
    }
    with pytest.raises(ValueError, match="without ':'"):
        await adapter.link_account(account)  # type: ignore[arg-type]
    assert await adapter.get_account("a:b", "c") is None
    session = {"session_token": "s", "user_id": "email:a@b.c", "expires": NOW + timedelta(hours=1)}
    with pytest.raises(LookupError):
        await adapter.create_session(session)  # type: ignore[arg-type]


async def test_data_survives_reopening(redis_url: str, prefix: str) -> None:
    async with RedisAdapter(redis_url, key_prefix=prefix) as adapter:
        user = await adapter.create_user({"id": "u1", "email": "a@b.c", "email_verified": NOW})
    async with RedisAdapter(redis_url, key_prefix=prefix) as adapter:
        assert await adapter.get_user_by_email("a@b.c") == user


async def test_an_unreachable_server_fails_to_open() -> None:
    from live_server import free_port

    adapter = RedisAdapter(f"redis://127.0.0.1:{free_port()}/0", socket_connect_timeout=2)
    with pytest.raises(redis.ConnectionError):
        await adapter.open()


async def test_a_refresh_in_single_flight(adapter: RedisAdapter, client: redis.Redis, prefix: str):
    """The shared single flight: one claim at a time, the answer for those after, a lease
    that ends with its holder (or when it runs out), only the holder's own lease ended."""
    assert await adapter.claim_refresh("refresh:k", "a", 5) == (True, None)
    assert await adapter.claim_refresh("refresh:k", "b", 5) == (False, None)  # a holds it
    assert await adapter.await_refresh("refresh:k", 0.05) is None  # still held: waited out
    await adapter.finish_refresh("refresh:k", "b", None, 30)  # not b's lease: still held
    assert client.get(f"{prefix}flight:lease:refresh:k") == "a"
    await adapter.finish_refresh("refresh:k", "a", b"\x00sealed", 30)
    assert not client.exists(f"{prefix}flight:lease:refresh:k")
    assert await adapter.claim_refresh("refresh:k", "c", 5) == (False, b"\x00sealed")
    assert await adapter.await_refresh("refresh:k", 1) == b"\x00sealed"
    assert 0 < client.pttl(f"{prefix}flight:answer:refresh:k") <= 30_000
    await adapter.finish_refresh("refresh:k", "", None, 0)  # spent: dropped
    assert not client.exists(f"{prefix}flight:answer:refresh:k")

    assert await adapter.claim_refresh("refresh:failed", "a", 5) == (True, None)
    await adapter.finish_refresh("refresh:failed", "a", None, 30)  # no answer: free again
    assert await adapter.await_refresh("refresh:failed", 1) is None  # at once: nobody holds it
    assert await adapter.claim_refresh("refresh:failed", "b", 0.05) == (True, None)
    assert await adapter.await_refresh("refresh:failed", 5) is None  # the lease ran out
    assert await adapter.claim_refresh("refresh:failed", "c", 5) == (True, None)


async def test_a_waiter_gets_the_answer_as_soon_as_it_is_kept(adapter: RedisAdapter) -> None:
    import anyio

    assert await adapter.claim_refresh("refresh:w", "a", 5) == (True, None)

    async def answer_soon() -> None:
        await anyio.sleep(0.1)
        await adapter.finish_refresh("refresh:w", "a", b"tokens", 30)

    async with anyio.create_task_group() as group:
        group.start_soon(answer_soon)
        with anyio.fail_after(2):
            assert await adapter.await_refresh("refresh:w", 5) == b"tokens"


async def test_marks_counters_and_sid_sets_expire_by_ttl(
    adapter: RedisAdapter, client: redis.Redis, prefix: str
) -> None:
    """TTLs are durations on the engine's clock (a test clock far from Redis's still works)."""
    long_ago = datetime(2001, 1, 1, tzinfo=UTC)
    await adapter.set_sessions_not_before("user:u1", long_ago, long_ago + timedelta(hours=1))
    assert 3_590_000 < client.pttl(f"{prefix}revocation:user:u1") <= 3_600_000
    await adapter.set_sessions_not_before("user:u1", long_ago, long_ago + timedelta(hours=2))
    assert client.pttl(f"{prefix}revocation:user:u1") > 7_000_000  # the later expiry wins
    await adapter.set_sessions_not_before("user:u2", long_ago, None)
    assert client.pttl(f"{prefix}revocation:user:u2") == -1  # kept for good
    await adapter.set_sessions_not_before("user:u2", long_ago, long_ago + timedelta(hours=1))
    assert client.pttl(f"{prefix}revocation:user:u2") == -1  # and stays so
    one_minute_later = long_ago + timedelta(minutes=1)
    assert await adapter.increment_counter("k", 60, long_ago) == (1, one_minute_later)
    assert 59_000 < client.pttl(f"{prefix}counter:k") <= 60_000
    await adapter.create_user({"id": "u1", "email": None, "email_verified": None})
    expires = datetime.now(UTC) + timedelta(days=1)
    session = {"session_token": "s1", "user_id": "u1", "expires": expires, "sid": "op:p:x"}
    await adapter.create_session(session)  # type: ignore[typeddict-unknown-key]
    assert client.smembers(f"{prefix}sid:op:p:x") == {"s1"}
    assert client.pttl(f"{prefix}sid:op:p:x") > 86_000_000
    await adapter.delete_session("s1")
    assert client.smembers(f"{prefix}sid:op:p:x") == set()
