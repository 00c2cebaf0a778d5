"""The session token is Auth.js's JWE: checked against joserfc, a JOSE library we did not write."""

import base64
import json
import os
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st
from joserfc import jwe
from joserfc.jwk import OctKey, thumbprint

from sansio_auth import jwt
from sansio_auth.jwt import InvalidToken
from tests.sansio_auth.driver import START, seeded_entropy

SALT = "authjs.session-token"
SECRET = "a-secret-that-is-long-enough-0123456789"


def encode(token, secret=SECRET, salt=SALT, now=START, max_age=jwt.DEFAULT_MAX_AGE):
    return jwt.encode(token, secret, salt, now=now, entropy=seeded_entropy("jwt"), max_age=max_age)


def header_of(token: str) -> dict:
    segment = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))


def joserfc_key(secret=SECRET, salt=SALT, enc="A256CBC-HS512") -> OctKey:
    return OctKey.import_key(jwt.derive_key(secret, salt, enc).material)


def test_round_trip_adds_iat_exp_jti():
    token = encode({"name": "Ann", "sub": "1"}, now=START + 0.9)
    claims = jwt.decode(token, SECRET, SALT, now=START)
    assert claims["name"] == "Ann"
    assert claims["sub"] == "1"
    assert claims["iat"] == int(START)
    assert claims["exp"] == int(START) + jwt.DEFAULT_MAX_AGE
    assert len(claims["jti"]) == 36
    assert claims["jti"][14] == "4"  # UUID v4


def test_default_claims_override_the_users():
    claims = jwt.decode(encode({"iat": 1, "exp": 2, "jti": "x"}), SECRET, SALT, now=START)
    assert claims["iat"] == int(START)
    assert claims["jti"] != "x"


def test_max_age_sets_exp():
    claims = jwt.decode(encode({}, max_age=60), SECRET, SALT, now=START)
    assert claims["exp"] == int(START) + 60


def test_protected_header_is_exactly_alg_enc_kid():
    token = encode({"a": 1})
    header = header_of(token)
    assert list(header) == ["alg", "enc", "kid"]
    assert header["alg"] == "dir"
    assert header["enc"] == "A256CBC-HS512"
    assert token.split(".")[1] == ""  # no encrypted key with "dir"


@pytest.mark.parametrize(("enc", "digest"), [("A256CBC-HS512", "sha512"), ("A256GCM", "sha256")])
def test_kid_is_the_rfc7638_thumbprint(enc, digest):
    key = jwt.derive_key(SECRET, SALT, enc)
    jwk = {"kty": "oct", "k": base64.urlsafe_b64encode(key.material).rstrip(b"=").decode()}
    assert key.kid == thumbprint(jwk, digest)
    assert len(key.material) == (64 if enc == "A256CBC-HS512" else 32)


def test_key_is_hkdf_sha256_with_the_cookie_name():
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    expected = HKDF(
        algorithm=hashes.SHA256(),
        length=64,
        salt=SALT.encode(),
        info=b"Auth.js Generated Encryption Key (authjs.session-token)",
    ).derive(SECRET.encode())
    assert jwt.derive_key(SECRET, SALT).material == expected


def test_joserfc_decrypts_our_token():
    token = encode({"name": "Ann"})
    result = jwe.decrypt_compact(token, joserfc_key(), algorithms=["dir", "A256CBC-HS512"])
    assert json.loads(result.plaintext)["name"] == "Ann"
    assert result.protected["kid"] == jwt.derive_key(SECRET, SALT).kid


@pytest.mark.parametrize("enc", ["A256CBC-HS512", "A256GCM"])
@pytest.mark.parametrize("with_kid", [True, False])
def test_we_decrypt_joserfcs_token(enc, with_kid):
    header = {"alg": "dir", "enc": enc}
    if with_kid:
        header["kid"] = jwt.derive_key(SECRET, SALT, enc).kid
    payload = json.dumps({"sub": "7", "exp": int(START) + 60}).encode()
    token = jwe.encrypt_compact(header, payload, joserfc_key(enc=enc), algorithms=["dir", enc])
    assert jwt.decode(token, SECRET, SALT, now=START) == {"sub": "7", "exp": int(START) + 60}


def test_a_token_without_kid_uses_the_first_secret_only():
    header = {"alg": "dir", "enc": "A256GCM"}
    token = jwe.encrypt_compact(
        header, b"{}", joserfc_key("old", enc="A256GCM"), algorithms=["dir", "A256GCM"]
    )
    assert jwt.decode(token, ["old", "new"], SALT, now=START) == {}
    with pytest.raises(InvalidToken):
        jwt.decode(token, ["new", "old"], SALT, now=START)


def test_rotation_first_matching_secret_wins_and_new_tokens_use_the_first():
    old_token = encode({"v": "old"}, secret="old-secret")
    assert jwt.decode(old_token, ["new-secret", "old-secret"], SALT, now=START)["v"] == "old"
    new_token = encode({"v": "new"}, secret=["new-secret", "old-secret"])
    assert header_of(new_token)["kid"] == jwt.derive_key("new-secret", SALT).kid
    assert jwt.decode(new_token, "new-secret", SALT, now=START)["v"] == "new"
    with pytest.raises(InvalidToken, match="no matching"):
        jwt.decode(new_token, "old-secret", SALT, now=START)


def test_an_unknown_secret_fails():
    with pytest.raises(InvalidToken):
        jwt.decode(encode({}), "another-secret", SALT, now=START)


def test_a_token_made_with_another_salt_fails():
    token = encode({}, salt="authjs.state")
    with pytest.raises(InvalidToken):
        jwt.decode(token, SECRET, SALT, now=START)
    secure = encode({}, salt="__Secure-authjs.session-token")
    with pytest.raises(InvalidToken):
        jwt.decode(secure, SECRET, SALT, now=START)


@pytest.mark.parametrize(
    ("offset", "valid"), [(-1, True), (0, True), (10, True), (14, True), (15, False), (20, False)]
)
def test_exp_has_15_seconds_tolerance(offset, valid):
    token = encode({}, max_age=100)
    now = START + 100 + offset
    if valid:
        assert jwt.decode(token, SECRET, SALT, now=now)["exp"] == int(START) + 100
    else:
        with pytest.raises(InvalidToken, match="expired"):
            jwt.decode(token, SECRET, SALT, now=now)


@pytest.mark.parametrize(("ahead", "valid"), [(10, True), (15, True), (16, False), (60, False)])
def test_nbf_has_15_seconds_tolerance(ahead, valid):
    token = encode({"nbf": int(START) + ahead})
    if valid:
        jwt.decode(token, SECRET, SALT, now=START)
    else:
        with pytest.raises(InvalidToken, match="not yet valid"):
            jwt.decode(token, SECRET, SALT, now=START)


@pytest.mark.parametrize("claim", ["exp", "nbf", "iat"])
@pytest.mark.parametrize("value", ["soon", True, None, [1]])
def test_time_claims_must_be_numbers(claim, value):
    payload = json.dumps({claim: value}).encode()
    token = jwe.encrypt_compact(
        {"alg": "dir", "enc": "A256GCM"},
        payload,
        joserfc_key(enc="A256GCM"),
        algorithms=["dir", "A256GCM"],
    )
    if value is None:
        jwt.decode(token, SECRET, SALT, now=START)
    else:
        with pytest.raises(InvalidToken):
            jwt.decode(token, SECRET, SALT, now=START)


@pytest.mark.parametrize(
    "header",
    [
        {"alg": "A256KW", "enc": "A256GCM"},
        {"alg": "dir", "enc": "A128GCM"},
        {"alg": "none", "enc": "A256GCM"},
    ],
)
def test_other_algorithms_are_refused(header):
    encoded = base64.urlsafe_b64encode(json.dumps(header).encode()).rstrip(b"=").decode()
    real = encode({}).split(".")
    with pytest.raises(InvalidToken):
        jwt.decode(".".join([encoded, *real[1:]]), SECRET, SALT, now=START)


@pytest.mark.parametrize("payload", [b"[1, 2]", b"not json", b'"text"'])
def test_payload_must_be_a_json_object(payload):
    token = jwe.encrypt_compact(
        {"alg": "dir", "enc": "A256GCM"},
        payload,
        joserfc_key(enc="A256GCM"),
        algorithms=["dir", "A256GCM"],
    )
    with pytest.raises(InvalidToken):
        jwt.decode(token, SECRET, SALT, now=START)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=20,
)
claims = st.dictionaries(
    st.text().filter(lambda k: k not in ("iat", "exp", "jti", "nbf")), json_values, max_size=8
)


@given(claims=claims)
def test_round_trip_of_arbitrary_claims(claims):
    token = encode(claims)
    decoded = jwt.decode(token, SECRET, SALT, now=START)
    assert {k: v for k, v in decoded.items() if k not in ("iat", "exp", "jti")} == claims
    assert (
        json.loads(
            jwe.decrypt_compact(token, joserfc_key(), algorithms=["dir", "A256CBC-HS512"]).plaintext
        )
        == decoded
    )


@given(
    index=st.integers(min_value=0),
    replacement=st.characters(codec="ascii"),
)
def test_any_changed_character_fails(index, replacement):
    token = encode({"sub": "1"})
    position = index % len(token)
    if token[position] == replacement:
        return
    tampered = token[:position] + replacement + token[position + 1 :]
    with pytest.raises(InvalidToken):
        jwt.decode(tampered, SECRET, SALT, now=START)


@given(cut=st.integers(min_value=0))
def test_any_truncation_fails(cut):
    token = encode({"sub": "1"})
    with pytest.raises(InvalidToken):
        jwt.decode(token[: cut % len(token)], SECRET, SALT, now=START)


@given(garbage=st.text())
def test_garbage_raises_only_invalid_token(garbage):
    with pytest.raises(InvalidToken):
        jwt.decode(garbage, SECRET, SALT, now=START)


def test_non_canonical_base64url_is_refused():
    # The tag's last character carries 2 unused bits: flipping one decodes to the same bytes.
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    token = encode({"sub": "1"})
    last = alphabet[alphabet.index(token[-1]) ^ 1]
    same_bytes = token[:-1] + last
    tag = same_bytes.rsplit(".", 1)[1]
    assert base64.urlsafe_b64decode(tag + "=") == base64.urlsafe_b64decode(
        token.rsplit(".", 1)[1] + "="
    )
    with pytest.raises(InvalidToken, match="non-canonical"):
        jwt.decode(same_bytes, SECRET, SALT, now=START)


@pytest.mark.parametrize("segment", [2, 3, 4])
@pytest.mark.parametrize("where", ["end", "middle", "start"])
def test_padding_is_refused_anywhere_in_a_segment(segment, where):
    parts = encode({"sub": "1"}).split(".")
    text = parts[segment]
    spot = {"end": len(text), "middle": len(text) // 2, "start": 0}[where]
    for padding in ("=", "=="):
        parts[segment] = text[:spot] + padding + text[spot:]
        with pytest.raises(InvalidToken):
            jwt.decode(".".join(parts), SECRET, SALT, now=START)


def test_made_with_tells_which_secret_encrypted_a_token():
    token = encode({}, secret=["new", "old"])
    assert jwt.made_with(token, "new", SALT)
    assert not jwt.made_with(token, "old", SALT)
    no_kid = jwe.encrypt_compact(
        {"alg": "dir", "enc": "A256GCM"}, b"{}", joserfc_key(enc="A256GCM"), ["dir", "A256GCM"]
    )
    assert jwt.made_with(no_kid, "anything", SALT)  # no kid: read with the first secret
    assert not jwt.made_with("garbage", "new", SALT)


def test_a_token_is_rotated_when_an_older_secret_made_it_and_never_with_one_secret():
    by_new, by_old = encode({}, secret=["new", "old"]), encode({}, secret=["old"])
    assert not jwt.rotated(by_new, ["new", "old"], SALT)
    assert jwt.rotated(by_old, ["new", "old"], SALT)
    assert not jwt.rotated(by_old, ["old"], SALT)  # what decode read with the only secret


@given(st.binary(min_size=16, max_size=16))
def test_uuid_v4_spells_what_the_uuid_module_does(random):
    assert jwt.uuid_v4(random) == str(uuid.UUID(bytes=random, version=4))


def test_decoded_tokens_decrypt_a_token_once_and_check_its_times_each_read(monkeypatch):
    from sansio_auth import jwt as module

    token = module.encode({"sub": "1"}, "s" * 32, "salt", now=1000, entropy=lambda n: b"\1" * n,
                          max_age=60)  # fmt: skip
    decoded = module.DecodedTokens(size=2)
    calls = []
    real = module.decode
    monkeypatch.setattr(module, "decode", lambda *a, **k: calls.append(a) or real(*a, **k))
    first = decoded.decode(token, ["s" * 32], "salt", now=1000)
    again = decoded.decode(token, ["s" * 32], "salt", now=1030)
    assert first == again == {"sub": "1", "iat": 1000, "exp": 1060, "jti": first["jti"]}
    assert len(calls) == 1
    with pytest.raises(module.InvalidToken, match="expired"):
        decoded.decode(token, ["s" * 32], "salt", now=1060 + module.CLOCK_TOLERANCE)
    with pytest.raises(module.InvalidToken):  # another salt is another key: decrypted anew
        decoded.decode(token, ["s" * 32], "other", now=1000)
    assert len(calls) == 2


def test_decoded_tokens_keep_no_failure_and_at_most_their_size():
    from sansio_auth import jwt as module

    decoded = module.DecodedTokens(size=2)
    tokens = [
        module.encode({"n": n}, "s" * 32, "salt", now=1000, entropy=os.urandom, max_age=60)
        for n in range(3)
    ]
    for token in tokens:
        decoded.decode(token, ["s" * 32], "salt", now=1000)
    with pytest.raises(module.InvalidToken):
        decoded.decode(tokens[0][:-2] + "xx", ["s" * 32], "salt", now=1000)
    assert list(decoded._claims) == [("salt", tokens[1]), ("salt", tokens[2])]
