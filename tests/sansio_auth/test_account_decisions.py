"""The pure decisions behind a user's own sessions and accounts, by hypothesis: freshness,
"never unlink the last way in" (a password counts), which sessions are live and which "the
others" are."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from io_bindings.db.memory import MemoryAdapter
from sansio_auth import AuthConfig, Engine
from sansio_auth._flows.freshness import check_fresh, is_fresh
from sansio_auth._flows.own_accounts import EMAIL, PASSWORD, account_way, can_unlink, ways_in
from sansio_auth._flows.session_list import ListedSession, chosen, live, others, public_id
from sansio_auth.errors import RecordNotFound, SessionNotFresh
from sansio_auth.providers import Credentials, Email, GitHub, Passkey, Password

times = st.floats(min_value=0, max_value=4e9, allow_nan=False)
ages = st.integers(min_value=1, max_value=10**8)


# -- freshness ---------------------------------------------------------------------------------


@given(signed_in=times, now=times, age=ages)
def test_fresh_exactly_within_the_age(signed_in, now, age):
    assert is_fresh(signed_in, now, age) is (now - signed_in <= age)


@given(signed_in=times, now=times, later=st.floats(min_value=0, max_value=1e9), age=ages)
def test_freshness_only_goes_away(signed_in, now, later, age):
    if not is_fresh(signed_in, now, age):
        assert not is_fresh(signed_in, now + later, age)


@given(now=times, age=ages)
def test_an_unknown_sign_in_time_is_never_fresh(now, age):
    assert not is_fresh(None, now, age)
    with pytest.raises(SessionNotFresh):
        check_fresh(None, now, age)


@given(signed_in=st.none() | times, now=times)
def test_age_zero_turns_the_check_off(signed_in, now):
    assert is_fresh(signed_in, now, 0)
    check_fresh(signed_in, now, 0)


@given(signed_in=times, ahead=st.floats(min_value=0, max_value=600), age=ages)
def test_a_sign_in_time_a_little_ahead_counts_as_now(signed_in, ahead, age):
    assert is_fresh(signed_in + ahead, signed_in, age)


# -- never unlinking the last way in -----------------------------------------------------------

way_names = st.sampled_from(["email", *(f"account:p{i}:{j}" for i in range(3) for j in range(3))])


@given(ways=st.frozensets(way_names), way=way_names)
def test_unlinking_never_leaves_the_user_without_a_way_in(ways, way):
    if can_unlink(ways, way) and way in ways:
        assert ways - {way}


@given(ways=st.frozensets(way_names, min_size=2), data=st.data())
def test_any_way_of_several_may_go(ways, data):
    assert can_unlink(ways, data.draw(st.sampled_from(sorted(ways))))


@given(ways=st.frozensets(way_names), way=way_names)
def test_what_is_no_way_in_may_always_go(ways, way):
    assume(way not in ways)
    assert can_unlink(ways, way)


def _settings(*providers):
    config = AuthConfig(
        secret="x" * 32,
        trust_host=True,
        adapter=MemoryAdapter(),
        providers=list(providers),
        session={"strategy": "jwt"},
        experimental={"enable_webauthn": True},
    )
    return Engine(config, clock=lambda: 0, entropy=bytes).settings


accounts = st.lists(
    st.fixed_dictionaries(
        {
            "provider": st.sampled_from(["github", "gone", "passkey", "credentials"]),
            "type": st.sampled_from(["oauth", "oidc", "webauthn", "credentials"]),
            "provider_account_id": st.sampled_from(["1", "2"]),
        }
    ),
    max_size=5,
)


@given(
    accounts=accounts,
    email=st.none() | st.just("a@b.c"),
    with_email=st.booleans(),
    password=st.booleans(),
    with_password=st.booleans(),
)
def test_ways_in_are_accounts_of_configured_providers_of_their_type_the_address_and_password(
    accounts, email, with_email, password, with_password
):
    providers = [GitHub(client_id="i", client_secret="s"), Passkey(), Credentials(authorize=id)]
    if with_email:
        providers.append(Email(send_verification_request=print))
    if with_password:
        providers.append(Password(send_email=lambda message, **_: None))
    settings = _settings(*providers)
    found = ways_in(settings, {"id": "u", "email": email}, accounts, password=password)
    expected = {
        account_way(a["provider"], a["provider_account_id"])
        for a in accounts
        if (a["provider"], a["type"]) in {("github", "oauth"), ("passkey", "webauthn")}
    }
    if email and with_email:
        expected.add(EMAIL)
    if password and with_password:
        expected.add(PASSWORD)
    assert found == expected


# -- the sessions listed, and "the others" -----------------------------------------------------

sessions = st.lists(
    st.builds(
        ListedSession,
        id=st.sampled_from([f"s{i}" for i in range(8)]),
        expires=times,
        last_seen_at=st.none() | times,
        created_at=st.none() | times,
    ),
    unique_by=lambda s: s.id,
    max_size=8,
)


@given(sessions=sessions, now=times)
def test_live_keeps_exactly_the_unexpired_sessions(sessions, now):
    kept = live(sessions, now)
    assert {s.id for s in kept} == {s.id for s in sessions if s.expires > now}
    seen = [s.last_seen_at or 0 for s in kept]
    assert seen == sorted(seen, reverse=True)


@given(sessions=sessions, data=st.data())
def test_live_puts_the_current_session_first(sessions, data):
    assume(sessions)
    current = data.draw(st.sampled_from(sessions)).id
    marked = [ListedSession(**{**_fields(s), "current": s.id == current}) for s in sessions]
    kept = live(marked, 0)
    if any(s.current for s in kept):
        assert kept[0].id == current


def _fields(session):
    return {f: getattr(session, f) for f in session.__struct_fields__}


@given(sessions=sessions, current=st.none() | st.sampled_from([f"s{i}" for i in range(10)]))
def test_the_others_are_every_session_but_the_current_one(sessions, current):
    ended = others(sessions, current)
    assert current not in {s.id for s in ended}
    assert {s.id for s in ended} | ({current} & {s.id for s in sessions}) == {
        s.id for s in sessions
    }


@given(sessions=sessions, ids=st.lists(st.sampled_from([f"s{i}" for i in range(10)])))
def test_chosen_names_only_the_users_sessions_or_refuses(sessions, ids):
    known = {s.id for s in sessions}
    if set(ids) <= known:
        assert [s.id for s in chosen(sessions, ids)] == list(dict.fromkeys(ids))
    else:
        with pytest.raises(RecordNotFound):
            chosen(sessions, ids)


@given(token=st.text(min_size=1))
def test_a_public_id_is_stable_and_does_not_contain_the_token(token):
    assume(len(token) > 4)
    assert public_id(token) == public_id(token)
    assert token not in public_id(token)
    assert len(public_id(token)) == 32
