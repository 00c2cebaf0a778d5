"""Writes ``sansio_auth/_common_passwords.py``: Django's list of common passwords, each in the
form :func:`sansio_auth.passwords.common_form` compares, compressed for the engine to decode
without opening a file.

Run ``python -m tools.common_passwords`` with Django installed (the ``test`` extra has it)
when Django's list changes; a test fails while the module is not what this writes.
"""

from __future__ import annotations

import base64
import gzip
import textwrap
import zlib
from importlib.util import find_spec
from pathlib import Path

from sansio_auth.passwords import common_form

ROOT = Path(__file__).parents[1]
MODULE = ROOT / "sansio_auth" / "_common_passwords.py"
LINE = 76
"""Characters of base64 per line of the module."""

HEADER = '''\
"""The built-in list of common passwords, read by :func:`sansio_auth.passwords.common_passwords`:
Django's ``django/contrib/auth/common-passwords.txt.gz`` (made by Royce Williams), each
entry in the form :func:`~sansio_auth.passwords.common_form` compares, sorted, one a line,
zlib at level 9, base64. Written by ``python -m tools.common_passwords``; do not edit.

The list comes from Django, under this licence:

Copyright (c) Django Software Foundation and individual contributors.
All rights reserved.

Redistribution and use in source and binary forms, with or without modification,
are permitted provided that the following conditions are met:

    1. Redistributions of source code must retain the above copyright notice,
       this list of conditions and the following disclaimer.

    2. Redistributions in binary form must reproduce the above copyright
       notice, this list of conditions and the following disclaimer in the
       documentation and/or other materials provided with the distribution.

    3. Neither the name of Django nor the names of its contributors may be used
       to endorse or promote products derived from this software without
       specific prior written permission.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND
ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED
WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT OWNER OR CONTRIBUTORS BE LIABLE FOR
ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES
(INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES;
LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON
ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
(INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS
SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
"""
'''


def django_list() -> list[str]:
    """The lines of the installed Django's ``common-passwords.txt.gz``."""
    spec = find_spec("django")
    if spec is None or spec.origin is None:
        raise SystemExit("Django is not installed: pip install 'sansio-auth[test]'")
    path = Path(spec.origin).parent / "contrib" / "auth" / "common-passwords.txt.gz"
    with gzip.open(path, "rt", encoding="utf-8") as file:
        return file.read().splitlines()


def entries(lines: list[str]) -> list[str]:
    """``lines`` as :func:`common_form` compares them: no blanks or repeats, sorted."""
    return sorted({form for line in lines if (form := common_form(line))})


def module_text(found: list[str]) -> str:
    """The module holding ``found``."""
    packed = base64.b64encode(zlib.compress("\n".join(found).encode(), 9)).decode("ascii")
    data = "\n".join(textwrap.wrap(packed, LINE))
    count = f'ENTRIES = {len(found)}\n"""How many passwords the list holds."""\n'
    return f'{HEADER}\n{count}DATA = """\\\n{data}\n"""\n'


def main() -> None:
    """Write the module from the installed Django's list."""
    MODULE.write_text(module_text(entries(django_list())))
    print(f"wrote {MODULE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
