"""The soak: our server under a mixed, hostile workload for minutes, watched for 5xx, errors
in its log and memory growth (``make soak``, ``python -m soak --minutes 10 --connections 64``).

It starts the real test OpenID Provider (``tests/oidc_op``) and :mod:`soak.app` on uvicorn,
then drives credentials sign-ins, session reads, sign-outs, CSRF tokens, OIDC round trips
against the OP, wrong passwords, bad CSRF tokens, garbage and tampered cookies over HTTP
(:mod:`soak.workload`), sampling the server's RSS (:mod:`soak.memory`) and reading its log
(:mod:`soak.logs`) at the end. :func:`soak.run.soak` returns the report.
"""

import sys
from pathlib import Path

# the test helpers the soaks reuse (servers, the PostgreSQL and Redis starters) are top-level
# modules in tests/support, as pytest imports them
_SUPPORT = str(Path(__file__).resolve().parents[1] / "tests" / "support")
if _SUPPORT not in sys.path:
    sys.path.insert(0, _SUPPORT)
