"""The client's version: the release of the /v1 interface it was written for."""

__version__ = "0.1.2"
