"""Python client of the Crucible API (standard library only).

    from crucible_client import Client
    c = Client()                      # key and address from the environment or `crucible login`
    c.get("/v1/me")
"""

from ._credentials import DEFAULT_BASE_URL, config_path
from ._http import ApiError
from ._version import __version__
from .client import Client

__all__ = ["Client", "ApiError", "DEFAULT_BASE_URL", "config_path", "__version__"]
