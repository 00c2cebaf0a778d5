"""Run one target under atheris: ``python -m fuzz.atheris_target NAME [libFuzzer flags] DIRS``.

The engine's and the bindings' modules are instrumented for coverage.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(include=["sansio_auth", "io_bindings"]):
    import sansio_auth
    import sansio_auth.oauth.callback
    import sansio_auth.oauth.discovery
    import sansio_auth.oauth.tokens  # noqa: F401

from fuzz.targets import TARGETS


def main() -> None:
    target = TARGETS[sys.argv[1]]
    atheris.Setup([sys.argv[0], *sys.argv[2:]], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
