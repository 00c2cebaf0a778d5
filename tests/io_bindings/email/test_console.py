"""ConsoleSender: prints the link, remembers the latest ones for a dev page."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest

from io_bindings.email import ConsoleSender
from sansio_auth import Theme
from sansio_auth.email import verification_message
from sansio_auth.events import call_with_params

pytestmark = pytest.mark.anyio

URL = "http://127.0.0.1:8000/auth/callback/email?callbackUrl=%2F&token=t{n}&email=u{n}%40x.org"


async def test_prints_and_keeps_the_link_with_its_message() -> None:
    out = io.StringIO()
    sender = ConsoleSender(file=out)
    expires = datetime.now(UTC) + timedelta(hours=24)
    theme = Theme(brand_color="#0b7285")
    params = {"identifier": "u1@x.org", "url": URL.format(n=1), "expires": expires,
              "provider": object(), "token": "t1", "theme": theme, "request": object()}  # fmt: skip
    before = datetime.now(UTC)
    await call_with_params(sender, params)
    assert out.getvalue() == f"[auth] sign-in link for u1@x.org: {URL.format(n=1)}\n"
    [sent] = sender.sent
    assert (sent.identifier, sent.url, sent.expires) == ("u1@x.org", URL.format(n=1), expires)
    assert before <= sent.sent_at <= datetime.now(UTC)
    assert sent.message == verification_message(URL.format(n=1), "127.0.0.1:8000", theme)


async def test_keeps_the_latest_newest_first() -> None:
    sender = ConsoleSender(keep=3, file=io.StringIO())
    for n in range(5):
        await sender(identifier=f"u{n % 2}@x.org", url=URL.format(n=n))
    assert [s.url for s in sender.sent] == [URL.format(n=n) for n in (4, 3, 2)]
    latest = sender.latest()
    assert latest is not None
    assert latest.url == URL.format(n=4)
    for_u1 = sender.latest("u1@x.org")
    assert for_u1 is not None
    assert for_u1.url == URL.format(n=3)
    assert sender.latest("nobody@x.org") is None


async def test_control_characters_never_reach_the_terminal() -> None:
    out = io.StringIO()
    sender = ConsoleSender(file=out)
    await sender("evil\x1b[2J@x.org", "http://h/\x07")
    assert out.getvalue() == "[auth] sign-in link for evil?[2J@x.org: http://h/?\n"
    assert sender.sent[0].identifier == "evil\x1b[2J@x.org"  # kept as given, escaped when shown


async def test_prints_to_stdout_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    await ConsoleSender()("a@x.org", "http://h/l")
    assert capsys.readouterr().out == "[auth] sign-in link for a@x.org: http://h/l\n"


def test_keep_must_be_positive() -> None:
    with pytest.raises(ValueError, match="keep"):
        ConsoleSender(keep=0)
