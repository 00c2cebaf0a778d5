"""Fuzz targets share the test-wide hypothesis profiles (``ci``; ``long`` for ``make fuzz``)."""

import tests.conftest  # noqa: F401 - registers and loads the profiles
