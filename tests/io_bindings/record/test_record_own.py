"""A user's own sessions and accounts are flows like any other: recorded through the runtime,
replayed offline, and a change in what they do is caught."""

from __future__ import annotations

from pathlib import Path

from io_bindings.db.memory import MemoryAdapter
from io_bindings.replay import replay
from tests.io_bindings.record.memory import PASSWORD, RuntimeBrowser, config, recording_browser

SESSION = {"strategy": "jwt", "revocation": True}


def record(path: Path) -> None:
    browser, recorder = recording_browser(path, config(adapter=MemoryAdapter(), session=SESSION))
    other = RuntimeBrowser(browser.auth, browser.clock)
    for each in (browser, other):
        each.sign_in_with_credentials(username="ann", password=PASSWORD)
    listed = browser.get(f"{browser.base}/sessions").json()
    assert [s["current"] for s in listed] == [True, False]
    assert browser.get(f"{browser.base}/security").status == 200
    form = {"csrfToken": browser.csrf_token()}
    ended = browser.post(f"{browser.base}/revoke-other-sessions", form=form)
    assert ended.status == 302
    assert other.session() is None
    recorder.close()


def test_the_security_routes_replay(tmp_path: Path) -> None:
    path = tmp_path / "own.jsonl"
    record(path)
    assert replay(path, config(adapter=MemoryAdapter(), session=SESSION)) is None


def test_a_change_in_what_they_do_is_caught(tmp_path: Path) -> None:
    path = tmp_path / "own.jsonl"
    record(path)
    without_revocation = config(adapter=MemoryAdapter(), session={"strategy": "jwt"})
    assert replay(path, without_revocation) is not None
