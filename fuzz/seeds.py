"""Write the seed corpora (``fuzz/corpus/<target>/``) from the shipped recordings.

python -m fuzz.seeds
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from urllib.parse import urlsplit

from fuzz.targets import NOW, SALT, SECRET, _entropy, _session_cookie
from io_bindings._recording import Exchange, body_bytes, read_exchanges
from sansio_auth import jwt as jose

HERE = Path(__file__).resolve().parent
RECORDINGS = HERE.parent / "tests" / "recordings"


def http_text(exchange: Exchange) -> bytes:
    """A recorded request in the engine target's HTTP-like form (first byte: no cookie)."""
    request = exchange.request
    parts = urlsplit(request["url"])
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    lines = [f"{request['method']} {target}"] + [f"{k}: {v}" for k, v in request["headers"].items()]
    return b"\x00" + "\n".join(lines).encode() + b"\n\n" + body_bytes(request["body"])


def seeds() -> dict[str, list[bytes]]:
    exchanges = [
        e for name in ("oidc", "email") for e in read_exchanges(str(RECORDINGS / f"{name}.jsonl"))
    ]
    found: dict[str, list[bytes]] = {name: [] for name in (
        "cookie_header", "jwe_decode", "form_query", "authorization_response",
        "token_response", "jwks", "discovery", "header_limits", "engine")}  # fmt: skip
    for exchange in exchanges:
        request = exchange.request
        found["engine"].append(http_text(exchange))
        found["header_limits"].append(
            "\n".join(f"{k}: {v}" for k, v in request["headers"].items()).encode()
        )
        found["engine"].append(b"\x01" + http_text(exchange)[1:])
        if "cookie" in request["headers"]:
            found["cookie_header"].append(request["headers"]["cookie"].encode())
        query = urlsplit(request["url"]).query
        found["form_query"].append(query.encode() + b"\n" + body_bytes(request["body"]))
        if "/callback/" in request["url"] and query:
            found["authorization_response"].append(query.encode())
            found["authorization_response"].append(f"state=forged&{query}".encode())
            found["authorization_response"].append(f"{query}&response=eyJ.x.y".encode())
        for step in exchange.steps:
            url = step.action.get("url", "")
            if step.event is None or step.event.get("kind") != "http":
                continue
            body = body_bytes(step.event["body"])
            if url.endswith("/token"):
                found["token_response"].append(b"\x01" + body)
            elif url.endswith("/jwks"):
                found["jwks"].append(body)
            elif url.endswith("openid-configuration"):
                document = json.loads(body)
                document["issuer"] = "https://op.example"  # the target's expected issuer
                found["discovery"].append(json.dumps(document).encode())
    token = jose.encode(
        {"name": "Ann", "email": "ann@example.com"}, SECRET, SALT, now=NOW, entropy=_entropy
    )
    found["jwe_decode"] += [token.encode(), _session_cookie().split("=", 1)[1].encode()]
    found["cookie_header"].append(f"{_session_cookie()}; a=1; {SALT}.0=x; {SALT}.1=y".encode())
    found["cookie_header"].append("; ".join(f"{SALT}.{i}=x" for i in range(40)).encode())
    found["header_limits"] += [
        b"\n".join(b"x-pad-%d: 1" % i for i in range(150)),
        b"x-big: " + b"x" * (70 * 1024),
        b"a:b\n\n:\nno-colon",
    ]
    found["form_query"].append(b"code=a&code=b&state=s\ncode=c&code=d")
    return found


def main() -> None:
    for name, inputs in seeds().items():
        directory = HERE / "corpus" / name
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        for data in dict.fromkeys(inputs):
            (directory / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)
        print(f"{name}: {len(list(directory.iterdir()))} seeds")


if __name__ == "__main__":
    main()
