"""``io_bindings.replay.changes``: a divergence names the field that changed (a query
parameter, a header, a form or JSON body field, a cookie) before the full values."""

from __future__ import annotations

from io_bindings.replay import MAX_CHANGES, Divergence, changes

TOKEN_REQUEST = {
    "kind": "http",
    "method": "POST",
    "url": "https://op.example/token",
    "headers": [["accept", "application/json"], ["authorization", "__redacted_1__"]],
    "body": {"text": "grant_type=authorization_code&code=__redacted_2__&scope=openid"},
}


def test_a_form_body_field_and_a_header() -> None:
    replayed = {
        **TOKEN_REQUEST,
        "headers": [["accept", "application/json"]],
        "body": {"text": "grant_type=authorization_code&code=__redacted_2__&scope=openid+email"},
    }
    assert changes(TOKEN_REQUEST, replayed) == [
        'body[scope]: "openid" → "openid email"',
        'headers.authorization: removed (was "__redacted_1__")',
    ]


def test_query_parameters_of_a_url() -> None:
    recorded = "https://op.example/authorize?client_id=a&scope=openid&state=s"
    replayed = "https://op.example/authorize?client_id=b&scope=openid&nonce=n&state=s"
    assert changes({"url": recorded}, {"url": replayed}) == [
        'url?client_id: "a" → "b"',
        'url?nonce: added ("n")',
    ]
    other_host = "https://other.example/authorize?client_id=a&scope=openid&state=s"
    assert changes(recorded, other_host) == [
        'the value: "https://op.example/authorize" → "https://other.example/authorize"'
    ]


def test_json_bodies_cookies_and_plain_values() -> None:
    assert changes(
        {"text": '{"sub": "1", "email": "a"}'}, {"text": '{"sub": "2", "email": "a"}'}
    ) == ['sub: "1" → "2"']
    assert changes([["authjs.session-token", "x"]], [["authjs.csrf-token", "y"]], "cookies") == [
        'cookies.authjs.csrf-token: added ("y")',
        'cookies.authjs.session-token: removed (was "x")',
    ]
    assert changes(302, 200, "status") == ["status: 302 → 200"]
    assert changes("same", "same") == []


def test_the_divergence_lists_a_few_changes_then_the_full_values() -> None:
    recorded = {f"k{i}": i for i in range(MAX_CHANGES + 3)}
    replayed = {key: value + 1 for key, value in recorded.items()}
    lines = str(Divergence(exchange=3, what="the action differs", recorded=recorded,
                           replayed=replayed)).splitlines()  # fmt: skip
    assert lines[:2] == ["exchange 3: the action differs", "  changed:"]
    first = sorted(recorded)[:MAX_CHANGES]  # by key
    assert lines[2 : 2 + MAX_CHANGES] == [f"    {k}: {recorded[k]} → {replayed[k]}" for k in first]
    assert lines[2 + MAX_CHANGES] == "    ... and 3 more"
    assert lines[-2].startswith('  recorded: {"k0": 0,')
    assert lines[-1].startswith('  replayed: {"k0": 1,')


def test_long_values_are_shortened_in_the_changes_only() -> None:
    recorded, replayed = "a" * 200, "b" * 200
    [line] = changes({"x": recorded}, {"x": replayed})
    assert len(line) < 140
    assert "…" in line
    assert replayed in str(Divergence(exchange=1, what="w", recorded=recorded, replayed=replayed))
