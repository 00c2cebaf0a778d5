"""Record exchanges through the runtime, replay them offline, and catch divergence."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from io_bindings._recording import read_exchanges
from io_bindings.replay import ReplayDiverged, assert_replays, main, replay
from tests.io_bindings.record.memory import PASSWORD, config, recording_browser
from tests.sansio_auth.driver import SECRET
from tests.sansio_auth.oauth.fake_op import CLIENT_SECRET, FakeOP, sign_in


def record_credentials(path: Path, **options: object) -> None:
    browser, recorder = recording_browser(path, config(**options))
    response = browser.sign_in_with_credentials(username="ann", password=PASSWORD)
    assert response.status == 302
    assert browser.session()["user"]["email"] == "ann@example.com"
    recorder.close()


def record_oidc(path: Path, op: FakeOP, *, sync: bool = False, redact_emails: bool = False) -> None:
    browser, recorder = recording_browser(
        path, config(op), op, sync=sync, redact_emails=redact_emails
    )
    response = sign_in(browser, op)
    assert response.status == 302, response
    assert browser.session()["user"]["email"] == "alice@example.com"
    recorder.close()


def test_credentials_sign_in_replays(tmp_path: Path) -> None:
    path = tmp_path / "credentials.jsonl"
    record_credentials(path)
    assert len(read_exchanges(str(path))) == 3  # csrf, callback, session
    assert replay(path, config()) is None


def test_live_replay_runs_the_callbacks(tmp_path: Path) -> None:
    path = tmp_path / "raw.jsonl"
    browser, recorder = recording_browser(path, config(), redact=False)
    browser.sign_in_with_credentials(username="ann", password=PASSWORD)
    recorder.close()
    assert replay(path, config(), live=True) is None
    # live, the user's authorize sees what the recording holds: a redacted password fails
    redacted = tmp_path / "redacted.jsonl"
    record_credentials(redacted)
    divergence = replay(redacted, config(), live=True)
    assert divergence is not None
    assert divergence.replayed == {"kind": "log", "level": "warn", "log_code": "CredentialsSignin"}


def test_oidc_sign_in_replays_with_resigned_id_token(tmp_path: Path) -> None:
    path = tmp_path / "oidc.jsonl"
    op = FakeOP()
    record_oidc(path, op)
    assert replay(path, config(FakeOP())) is None


def test_the_sync_runtime_records_the_same_exchanges(tmp_path: Path) -> None:
    record_oidc(tmp_path / "async.jsonl", FakeOP())
    record_oidc(tmp_path / "sync.jsonl", FakeOP(), sync=True)
    assert (tmp_path / "sync.jsonl").read_text() == (tmp_path / "async.jsonl").read_text()
    assert replay(tmp_path / "sync.jsonl", config(FakeOP())) is None


def test_secrets_are_redacted_with_consistent_placeholders(tmp_path: Path) -> None:
    path = tmp_path / "oidc.jsonl"
    op = FakeOP()
    record_oidc(path, op)
    text = path.read_text()
    grant = next(iter(op.grants))
    access_token = next(iter(op.access_tokens))
    for secret in (SECRET, CLIENT_SECRET, grant, access_token):
        assert secret not in text
    [*_, callback, session] = read_exchanges(str(path))
    assert "code=__redacted_" in callback.request["url"]
    # the session cookie set by the callback is the one the next request sends back
    [[name, value]] = [c for c in callback.response["cookies"] if c[0] == "authjs.session-token"]
    assert f"{name}={value}" in session.request["headers"]["cookie"]
    assert value.startswith("__redacted_")
    tokens = [s.event for s in callback.steps if s.action.get("url", "").endswith("/token")]
    body = json.loads(tokens[0]["body"]["text"])
    assert body["access_token"].startswith("__redacted_")
    _, claims, signature = body["id_token"].split(".")
    assert signature.startswith("__redacted_")
    assert json.loads(base64.urlsafe_b64decode(claims + "==="))["sub"] == "alice-sub"


def test_emails_are_redacted_on_request_and_the_recording_still_replays(tmp_path: Path) -> None:
    kept, redacted = tmp_path / "kept.jsonl", tmp_path / "redacted.jsonl"
    record_oidc(kept, FakeOP())
    record_oidc(redacted, FakeOP(), redact_emails=True)
    assert "alice@example.com" in kept.read_text()
    text = redacted.read_text()
    assert "alice@example.com" not in text
    [*_, callback, _] = read_exchanges(str(redacted))
    tokens = [s.event for s in callback.steps if s.action.get("url", "").endswith("/token")]
    id_token = json.loads(tokens[0]["body"]["text"])["id_token"]
    claims = json.loads(base64.urlsafe_b64decode(id_token.split(".")[1] + "==="))
    assert claims["email"].endswith("__@redacted.invalid")
    assert claims["sub"] == "alice-sub"
    assert replay(redacted, config(FakeOP())) is None


def test_password_is_redacted(tmp_path: Path) -> None:
    path = tmp_path / "credentials.jsonl"
    record_credentials(path)
    assert PASSWORD not in path.read_text()
    assert "password=__redacted_" in path.read_text()


def test_unredacted_recording_keeps_values(tmp_path: Path) -> None:
    path = tmp_path / "raw.jsonl"
    browser, recorder = recording_browser(path, config(), redact=False)
    browser.sign_in_with_credentials(username="ann", password=PASSWORD)
    recorder.close()
    assert PASSWORD in path.read_text()
    assert replay(path, config()) is None


def test_a_config_change_that_alters_the_flow_diverges(tmp_path: Path) -> None:
    path = tmp_path / "credentials.jsonl"
    record_credentials(path)
    changed = config(callbacks={"sign_in": lambda user: user["email"].endswith(".org")})
    divergence = replay(path, changed)
    assert divergence is not None
    assert divergence.exchange == 2
    assert divergence.what == "the action differs"
    assert divergence.recorded["name"] == "events.sign_in"
    assert divergence.replayed["name"] == "sign_in"
    with pytest.raises(ReplayDiverged, match="exchange 2"):
        assert_replays(path, changed)


def test_a_changed_provider_diverges_at_its_first_action(tmp_path: Path) -> None:
    path = tmp_path / "oidc.jsonl"
    record_oidc(path, FakeOP())
    divergence = replay(path, config(FakeOP(client_id="another-client")))
    assert divergence is not None
    assert "Location differs" in divergence.what or "action differs" in divergence.what
    assert "another-client" in str(divergence)


def test_a_divergence_shows_what_changed_before_the_full_values(tmp_path: Path) -> None:
    """A changed authorization parameter: the diff names the query parameter, then the two
    whole URLs follow."""
    path = tmp_path / "oidc.jsonl"
    record_oidc(path, FakeOP())
    changed = FakeOP()
    recorded = changed.provider()
    changed.provider = lambda: {**recorded, "authorization_params": {"prompt": "login"}}  # type: ignore[method-assign]
    divergence = replay(path, config(changed))
    assert divergence is not None
    lines = str(divergence).splitlines()
    assert lines[0] == f"exchange {divergence.exchange}: the response Location differs"
    assert lines[1:3] == ["  changed:", '    ?prompt: added ("login")']
    assert lines[3].startswith('  recorded: "http')
    assert lines[4].startswith('  replayed: "http')
    assert "prompt=login" in lines[4]


def test_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "credentials.jsonl"
    record_credentials(path)
    spec = "tests.io_bindings.record.memory:config"
    assert main([str(path), "--config", spec]) == 0
    assert main([str(path), "--config", spec, "--live"]) == 1  # live: the password is redacted
    assert "CredentialsSignin" in capsys.readouterr().out
    (tmp_path / "bad.jsonl").write_text(path.read_text().replace('"version":1', '"version":9'))
    assert main([str(tmp_path / "bad.jsonl"), "--config", spec]) == 2
    assert "unknown version 9" in capsys.readouterr().err
    assert main([str(tmp_path / "missing.jsonl"), "--config", spec]) == 2
