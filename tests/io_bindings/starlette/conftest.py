import pytest


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """In-process tests run on both event loops."""
    backend: str = request.param
    return backend
