"""SMTPSender against a real SMTP server (aiosmtpd on 127.0.0.1), on asyncio and trio."""

from __future__ import annotations

import ssl
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from html.parser import HTMLParser

import anyio
import pytest
from live_server import free_port
from mail_server import ReceivedMail, mail_server, silent_server

from io_bindings.email import EmailSendError, SMTPSender
from sansio_auth import Theme
from sansio_auth.email import verification_message
from sansio_auth.events import call_with_params

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

URL = "https://shop.example.com/auth/callback/email?callbackUrl=%2F&token=abc123&email=ada%40example.com"
TO = "ada@example.com"
FROM = "Shop <no-reply@shop.example.com>"
LOGINS = {"mailer": "s3cret"}


class Links(HTMLParser):
    """Collects the ``href`` of every link in an HTML body."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.hrefs += [value or "" for name, value in attrs if tag == "a" and name == "href"]


def parts(message: EmailMessage) -> tuple[str, str]:
    """The text and HTML bodies, with the wire's CRLF line ends read as LF."""
    text = message.get_body(("plain",))
    html = message.get_body(("html",))
    assert text is not None
    assert html is not None
    contents: list[str] = [part.get_content() for part in (text, html)]
    return contents[0].replace("\r\n", "\n"), contents[1].replace("\r\n", "\n")


def assert_sign_in_mail(mail: ReceivedMail, *, mail_from: str) -> None:
    expected = verification_message(URL, "shop.example.com")
    assert mail.rcpt_tos == [TO]
    assert mail.mail_from == mail_from
    message = mail.message
    assert message["To"] == TO
    assert message["Subject"] == "Sign in to shop.example.com"
    assert message.get_content_type() == "multipart/alternative"
    assert message["Date"] is not None
    assert message["Message-ID"] is not None
    text, html = parts(message)
    assert text == expected.text
    assert html.strip() == expected.html
    links = Links()
    links.feed(html)
    assert links.hrefs == [URL]


async def send(sender: SMTPSender) -> None:
    """As the engine does: every keyword, of which the sender takes those it names."""
    expires = datetime.now(UTC) + timedelta(days=1)
    params = {"identifier": TO, "url": URL, "expires": expires, "provider": object(),
              "token": "abc123", "theme": Theme(), "request": object()}  # fmt: skip
    await call_with_params(sender, params)


async def test_starttls_with_login(server_tls: ssl.SSLContext, client_tls: ssl.SSLContext) -> None:
    with mail_server(tls_context=server_tls, logins=LOGINS) as smtp:
        sender = SMTPSender(smtp.host, smtp.port, "mailer", "s3cret", from_=FROM,
                            ssl_context=client_tls, timeout=10)  # fmt: skip
        await send(sender)
        [mail] = smtp.inbox.wait_for(1)
    assert mail.tls
    assert mail.login == "mailer"
    assert_sign_in_mail(mail, mail_from="no-reply@shop.example.com")
    assert mail.message["From"] == FROM


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")  # TLS is implicit
async def test_implicit_tls(server_tls: ssl.SSLContext, client_tls: ssl.SSLContext) -> None:
    with mail_server(tls_context=server_tls, implicit_tls=True, logins=LOGINS) as smtp:
        sender = SMTPSender(smtp.host, smtp.port, "mailer", "s3cret", from_=FROM,
                            security="tls", ssl_context=client_tls, timeout=10)  # fmt: skip
        await send(sender)
        [mail] = smtp.inbox.wait_for(1)
    assert mail.tls
    assert mail.login == "mailer"
    assert_sign_in_mail(mail, mail_from="no-reply@shop.example.com")


async def test_plain_relay_and_the_default_sender_address() -> None:
    with mail_server() as smtp:
        await send(SMTPSender(smtp.host, smtp.port, security="none", timeout=10))
        [mail] = smtp.inbox.wait_for(1)
    assert not mail.tls
    assert mail.login is None
    assert_sign_in_mail(mail, mail_from="no-reply@shop.example.com")


async def test_theme_colours_the_button() -> None:
    theme = Theme(brand_color="#123456", button_text="#abcdef")
    with mail_server() as smtp:
        sender = SMTPSender(smtp.host, smtp.port, security="none", timeout=10)
        await sender(TO, URL, theme=theme)
        [mail] = smtp.inbox.wait_for(1)
    _, html = parts(mail.message)
    assert html.strip() == verification_message(URL, "shop.example.com", theme).html
    assert 'bgcolor="#123456"' in html
    assert "color:#abcdef" in html


async def test_starttls_is_required_by_default() -> None:
    with mail_server() as smtp:  # offers no STARTTLS
        sender = SMTPSender(smtp.host, smtp.port, timeout=10)
        with pytest.raises(EmailSendError, match="STARTTLS"):
            await send(sender)
        assert smtp.inbox.mail == []


async def test_untrusted_certificate_is_refused(server_tls: ssl.SSLContext) -> None:
    with mail_server(tls_context=server_tls) as smtp:
        sender = SMTPSender(smtp.host, smtp.port, timeout=10)  # the system CAs only
        with pytest.raises(EmailSendError, match="CERTIFICATE_VERIFY_FAILED") as caught:
            await send(sender)
        assert isinstance(caught.value.__cause__, ssl.SSLError)
        assert smtp.inbox.mail == []


async def test_wrong_password_is_a_clear_error(
    server_tls: ssl.SSLContext, client_tls: ssl.SSLContext
) -> None:
    with mail_server(tls_context=server_tls, logins=LOGINS) as smtp:
        sender = SMTPSender(smtp.host, smtp.port, "mailer", "wrong", ssl_context=client_tls,
                            timeout=10)  # fmt: skip
        with pytest.raises(EmailSendError, match=r"login refused \(535\)") as caught:
            await send(sender)
        assert str(caught.value).startswith("could not send the sign-in e-mail through 127.0.0.1:")
        assert "wrong" not in str(caught.value)
        assert smtp.inbox.mail == []


async def test_login_is_required_by_the_server(
    server_tls: ssl.SSLContext, client_tls: ssl.SSLContext
) -> None:
    with mail_server(tls_context=server_tls, logins=LOGINS) as smtp:
        sender = SMTPSender(smtp.host, smtp.port, ssl_context=client_tls, timeout=10)
        with pytest.raises(EmailSendError, match="530"):
            await send(sender)
        assert smtp.inbox.mail == []


async def test_refused_recipient_is_named_by_code_not_address() -> None:
    with mail_server() as smtp:
        smtp.inbox.refused_recipients.add(TO)
        sender = SMTPSender(smtp.host, smtp.port, security="none", timeout=10)
        with pytest.raises(EmailSendError, match=r"recipient refused \(550\)") as caught:
            await send(sender)
        assert TO not in str(caught.value)
        assert smtp.inbox.mail == []


async def test_header_injection_in_the_address_sends_nothing() -> None:
    with mail_server() as smtp:
        sender = SMTPSender(smtp.host, smtp.port, security="none", timeout=10)
        with pytest.raises(EmailSendError, match="header"):
            await sender("ada@example.com\r\nBcc: eve@example.com", URL)
        assert smtp.inbox.mail == []


async def test_nothing_listening_is_an_error() -> None:
    sender = SMTPSender("127.0.0.1", free_port(), security="none", timeout=5)
    with pytest.raises(EmailSendError, match="refused") as caught:
        await send(sender)
    assert isinstance(caught.value.__cause__, ConnectionRefusedError)


async def test_silent_server_times_out() -> None:
    with silent_server() as port:
        sender = SMTPSender("127.0.0.1", port, security="none", timeout=0.5)
        with anyio.fail_after(10), pytest.raises(EmailSendError, match="timed out"):
            await send(sender)


async def test_messages_go_out_concurrently() -> None:
    with mail_server() as smtp:
        sender = SMTPSender(smtp.host, smtp.port, security="none", timeout=10)
        async with anyio.create_task_group() as tasks:
            for n in range(5):
                tasks.start_soon(sender, f"user{n}@example.com", URL)
        received = smtp.inbox.wait_for(5)
    assert sorted(to for mail in received for to in mail.rcpt_tos) == [
        f"user{n}@example.com" for n in range(5)
    ]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"security": "ssl"}, "security must be one of"),
        ({"password": "x"}, "a password needs a username"),
    ],
)
def test_bad_options_are_refused_at_construction(options: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SMTPSender("localhost", **options)  # type: ignore[arg-type]


def test_default_ports() -> None:
    assert SMTPSender("h").port == 587
    assert SMTPSender("h", security="tls").port == 465
    assert SMTPSender("h", security="none").port == 25
    assert repr(SMTPSender("h", 2525)) == "SMTPSender('h', 2525, security='starttls')"
