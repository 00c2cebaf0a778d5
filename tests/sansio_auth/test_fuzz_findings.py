"""What the atheris targets found (fuzz/): each input is now a handled outcome."""

from __future__ import annotations

import base64

import pytest

from sansio_auth import jwt as jose
from sansio_auth.cookies import read_chunked
from sansio_auth.fetch import ProviderResponseError, decode_json
from sansio_auth.oauth.id_token import IDTokenError, read_header
from sansio_auth.oauth.tokens import TokenResponseError, parse_token_response

INVALID_UTF8_JSON = b'{"access_token": "\xaf"}'


def test_invalid_utf8_in_a_provider_json_body_is_a_provider_error() -> None:
    with pytest.raises(ProviderResponseError):
        decode_json(INVALID_UTF8_JSON, "JWKS")
    with pytest.raises(TokenResponseError):
        parse_token_response(200, INVALID_UTF8_JSON, now=0)


def test_invalid_utf8_in_an_id_token_header_is_an_id_token_error() -> None:
    header = base64.urlsafe_b64encode(b'{"alg": "\xff"}').rstrip(b"=").decode()
    with pytest.raises(IDTokenError):
        read_header(f"{header}.e30.sig")


def test_a_non_ascii_kid_is_an_invalid_token() -> None:
    header = base64.urlsafe_b64encode('{"alg":"dir","enc":"A256GCM","kid":"é"}'.encode())
    token = header.rstrip(b"=").decode() + "..AAAA.AAAA.AAAA"
    with pytest.raises(jose.InvalidToken):
        jose.decode(token, "secret", "salt", now=0)


def test_a_chunk_suffix_of_unicode_digits_is_not_a_chunk() -> None:
    cookies = {"authjs.session-token.\u00b9": "x", "authjs.session-token.0": "y"}
    assert read_chunked(cookies, "authjs.session-token") == ("y", ["authjs.session-token.0"])
