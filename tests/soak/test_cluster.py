"""The cluster soak's judgements, without a fleet: the OP's ledger read as refresh-token
chains, the nodes' logs sorted by outage, the balancer's configuration and log, memory
trends, the race rule of revocations, the command line."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import soak  # noqa: F401  (puts tests/support on the path, as for the soak itself)
from soak.cluster.__main__ import FULL, QUICK, options
from soak.cluster.balancer import Balancer, configuration
from soak.cluster.checks import held_tokens, rotations
from soak.cluster.logs import classify
from soak.cluster.report import growth_kib
from soak.cluster.workload import RACE_MARGIN, FleetTally, Outages, World
from soak.memory import Sample

LEDGER = [
    {"grant": "authorization_code", "presented": None, "issued": "a1", "grant_id": "g1"},
    {"grant": "refresh_token", "presented": "a1", "issued": "a2", "grant_id": "g1", "by": "n0"},
    {"grant": "refresh_token", "presented": "a2", "issued": "a3", "grant_id": "g1", "by": "n1"},
    {"grant": "authorization_code", "presented": None, "issued": "b1", "grant_id": "g2"},
    {"grant": "authorization_code", "presented": None, "issued": "c1", "grant_id": "g3"},
    {"revoked": "g3"},
]


def test_the_ledger_as_refresh_token_chains() -> None:
    found = rotations(LEDGER)
    assert found.refreshes == 2
    assert found.reused == {}
    assert found.refused == []
    assert dict(found.by_node) == {"n0": 1, "n1": 1}
    assert [found.state(d) for d in ("a1", "a2", "a3", "b1", "c1", "zz")] == [
        "spent",
        "spent",
        "live",
        "live",
        "revoked",
        "unknown",
    ]
    held = {"ann": "a3", "bob": "b1", "cid": "c1", "dan": "a2", "eve": None}
    assert held_tokens(found, held) == {
        "live": ["ann", "bob"],
        "revoked": ["cid"],
        "spent": ["dan"],
        "refused": ["eve"],
    }


def test_a_refresh_token_sent_twice_is_a_reuse_and_its_refusal_is_counted() -> None:
    twice = [
        *LEDGER[:2],
        {"grant": "refresh_token", "presented": "a1", "error": "invalid_grant", "by": "n2"},
        {"revoked": "g1"},
    ]
    found = rotations(twice)
    assert found.reused == {"a1": 2}
    assert [entry["by"] for entry in found.refused] == ["n2"]
    assert found.state("a2") == "revoked"  # the OP ended the grant for it


def test_log_entries_in_an_outage_are_fail_closed_the_others_unexpected() -> None:
    outages = Outages()
    outage = outages.begin("Redis stopped")
    outage.start, outage.end = 100.0, 110.0
    offset = 1_000_000.0  # wall clock - monotonic
    log = (
        f"{offset + 105:.3f} sansio_auth: [auth][error] AdapterError: connection refused\n"
        "Traceback (most recent call last):\n"
        '  File "x.py", line 1\n'
        "redis.exceptions.ConnectionError: refused\n"
        f"{offset + 110.5:.3f} psycopg.pool: error connecting in 'pool-1'\n"
        f"{offset + 130:.3f} sansio_auth: [auth][error] AdapterError: later\n"
        "ERROR:    Exception in ASGI application\n"
    )
    found = classify(log, outages, offset)
    assert dict(found.fail_closed) == {
        "Redis stopped: AdapterError": 1,
        "Redis stopped: psycopg.pool": 1,  # within a second of the end
    }
    assert [entry.split(":")[0] for entry in found.unexpected] == [
        f"{offset + 130:.3f} sansio_auth",
        "ERROR",
    ]


def test_outages_and_the_race_rule_of_revocations() -> None:
    outages = Outages()
    assert outages.during(0, 1) is None
    outage = outages.begin("PostgreSQL restart")
    assert outages.during(outage.start + 5, outage.start + 6) == "PostgreSQL restart"  # ongoing
    outage.end = outage.start + 10
    assert outages.during(outage.end + 1, outage.end + 2) is None
    world = World("http://lb", list, None, outages, FleetTally(), 10, 20)  # type: ignore[arg-type]
    seen = time.monotonic()
    assert not world.revoked_since("ann", seen)
    world.revoked["ann"] = seen - RACE_MARGIN + 0.1  # ended just before the session was seen
    assert world.revoked_since("ann", seen)
    world.revoked["ann"] = seen - RACE_MARGIN - 1
    assert not world.revoked_since("ann", seen)
    world.revoking["ann"] += 1  # one under way may end any session of the user
    assert world.revoked_since("ann", seen)


def test_the_balancer_configuration() -> None:
    text = configuration(8000, [("node-0", 8001), ("node-1", 8002)], Path("/tmp/admin.sock"))
    assert "balance roundrobin" in text
    assert "retry-on conn-failure empty-response response-timeout" in text
    assert "option redispatch 1" in text
    assert "option httpchk GET /health" in text
    assert "    server node-1 127.0.0.1:8002\n" in text
    assert "cookie" not in text  # no stickiness
    assert "stick" not in text


def haproxy_line(status: int, flags: str, retries: str, request: str) -> str:
    """A request's line in HAProxy's ``httplog`` format."""
    backend = "fleet/<NOSRV>" if request == "<BADREQ>" else "nodes/node-1"
    counts = f"5/5/1/1/{retries}"
    return (
        f'127.0.0.1:1 [t] fleet {backend} 0/0/0/3/3 {status} 0 - - {flags} {counts} 0/0 "{request}"'
    )


def test_the_balancer_log_keeps_what_went_wrong(tmp_path: Path) -> None:
    lines = {
        "ok": haproxy_line(200, "----", "0", "GET /auth/session HTTP/1.1"),
        "retried": haproxy_line(200, "----", "+1", "GET /api/token HTTP/1.1"),
        "5xx": haproxy_line(500, "----", "0", "GET /auth/error?error=Configuration HTTP/1.1"),
        "logout": haproxy_line(302, "----", "0", "POST /auth/backchannel-logout/op HTTP/1.1"),
        "sign-in": haproxy_line(302, "----", "0", "POST /auth/signin/op HTTP/1.1"),
        "check": haproxy_line(400, "CR--", "0", "<BADREQ>"),
        "cut": haproxy_line(502, "SH--", "3", "GET /auth/session HTTP/1.1"),
        "notice": "[WARNING]  (1) : Server nodes/node-0 enters drain state.",
    }
    log = tmp_path / "haproxy.log"
    log.write_text("\n".join(lines.values()) + "\n")
    balancer = Balancer("http://lb", tmp_path / "admin.sock", None, log)  # type: ignore[arg-type]
    unusual = balancer.unusual()
    assert unusual == [lines[k] for k in ("retried", "5xx", "cut")]


def test_memory_is_judged_over_a_node_s_last_run() -> None:
    samples = [Sample(float(t), 100_000 + (t * 100 if t >= 50 else 0)) for t in range(0, 110, 10)]
    growth = growth_kib(samples, since=50)
    assert growth is not None
    assert growth[0] == pytest.approx(5 * 1000)  # 100 KiB a second over 50 s
    assert growth[1:] == (105_000, 110_000)
    assert growth_kib(samples, since=95) is None  # too few samples to judge


def test_the_command_line() -> None:
    assert options(["--quick"]) == QUICK
    assert options([]) == FULL
    both = options(["--quick", "--nodes", "4", "--workers", "1", "--users", "3"])
    assert (both.fleet.nodes, both.fleet.workers, both.users) == (4, 1, 3)
    assert both.tail == QUICK.tail
    assert options(["--seconds", "30"]).seconds == 30
    with pytest.raises(SystemExit):
        options(["--nodes", "0"])
