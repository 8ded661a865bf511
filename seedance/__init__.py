"""Seedance: declarative cost policies for AI/GPU compute on AWS and Kubernetes."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("seedance")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0+unknown"
