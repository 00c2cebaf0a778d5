"""Password accounts and two-factor are recordable and replayable.

A sign-up, verification and password sign-in recorded (redacted) through the runtime replay
offline, and the file holds neither the password nor its hash. Second factors are checked
inside the engine against the stored (sealed) secret, which a redacted recording does not
hold: a recording made with ``redact=False`` replays the TOTP set-up and challenge too, and a
redacted one holds neither the TOTP secret nor the recovery codes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from io_bindings.db.memory import MemoryAdapter
from io_bindings.replay import replay
from sansio_auth import AuthConfig
from sansio_auth.providers import Password
from tests.io_bindings.record.memory import RuntimeBrowser, recording_browser
from tests.sansio_auth.accounts_peer import FAST, Outbox, code_for
from tests.sansio_auth.driver import SECRET

PASSWORD = "a passphrase found nowhere else"
JSON = {"accept": "application/json"}
BASE = "/auth"


def config(outbox: Outbox) -> AuthConfig:
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=MemoryAdapter(),
        providers=[Password(send_email=outbox, argon2=FAST)],
        session={"strategy": "jwt"},
        two_factor={},
    )


def form(browser: RuntimeBrowser, **fields: str) -> dict[str, str]:
    return {"csrfToken": browser.csrf_token(), **fields}


def sign_up_and_in(browser: RuntimeBrowser, outbox: Outbox) -> dict[str, str]:
    browser.post(f"{BASE}/signup", form=form(browser, email="ann@example.com", password=PASSWORD))
    assert browser.get(outbox.last("verify-email").path).status == 200
    sign_in = form(browser, email="ann@example.com", password=PASSWORD)
    assert browser.post(f"{BASE}/callback/password", form=sign_in).status == 302
    return sign_in


def two_factor(browser: RuntimeBrowser, sign_in: dict[str, str]) -> tuple[str, list[str]]:
    uri = browser.get(f"{BASE}/two-factor-setup", headers=JSON).json()["uri"]
    enable = form(browser, action="enable", code=code_for(uri, browser.clock.now))
    codes = browser.post(f"{BASE}/two-factor-setup", form=enable, headers=JSON).json()
    browser.sign_out()
    browser.advance(30)
    browser.post(f"{BASE}/callback/password", form=sign_in)
    challenge = form(browser, method="totp", code=code_for(uri, browser.clock.now))
    assert browser.post(f"{BASE}/two-factor", form=challenge).status == 302
    assert browser.session()["user"]["email"] == "ann@example.com"
    return uri, codes["recovery_codes"]


def kinds(path: Path) -> set[str]:
    exchanges = [json.loads(line) for line in path.read_text().splitlines()]
    return {step["action"]["kind"] for exchange in exchanges for step in exchange["steps"]}


def test_a_password_account_records_redacted_and_replays(tmp_path: Path) -> None:
    path = tmp_path / "accounts.jsonl"
    outbox = Outbox()
    browser, recorder = recording_browser(path, config(outbox))
    sign_up_and_in(browser, outbox)
    recorder.close()
    assert replay(path, config(Outbox())) is None
    recorded = path.read_text()
    assert PASSWORD not in recorded
    assert "$argon2id$" not in recorded
    assert {"hash_password", "verify_password"} <= kinds(path)


def test_two_factor_replays_from_an_unredacted_recording(tmp_path: Path) -> None:
    path = tmp_path / "raw.jsonl"
    outbox = Outbox()
    browser, recorder = recording_browser(path, config(outbox), redact=False)
    two_factor(browser, sign_up_and_in(browser, outbox))
    recorder.close()
    assert replay(path, config(Outbox())) is None


def test_a_redacted_recording_holds_no_second_factor_secret(tmp_path: Path) -> None:
    path = tmp_path / "redacted.jsonl"
    outbox: Any = Outbox()
    browser, recorder = recording_browser(path, config(outbox))
    uri, codes = two_factor(browser, sign_up_and_in(browser, outbox))
    recorder.close()
    recorded = path.read_text()
    secret = uri.split("secret=")[1].split("&")[0]
    assert secret not in recorded
    assert not any(code in recorded for code in codes)
