"""Builds the client's wheel with the standard library only (the wheel format, PEP 427).

As a script: ``python3 build_wheel.py [out_dir]`` writes
``<out_dir or dist>/crucible_client-<version>-py3-none-any.whl`` and removes older wheels
there, so the gateway's /downloads and /v1/health ``client_wheel`` name exactly one file.
As a PEP 517 build backend (pyproject.toml ``build-backend = "build_wheel"``) it lets
``pip install clients/python`` work without a package index. The archive is reproducible:
files in sorted order with a fixed timestamp (``SOURCE_DATE_EPOCH`` when set).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import sys
import tarfile
import time
import tomllib
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "crucible_client"


def _project() -> dict:
    with open(os.path.join(HERE, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _dist_name(project: dict) -> str:
    return project["name"].replace("-", "_")


def _metadata(project: dict) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project['description']}",
        f"Requires-Python: {project['requires-python']}",
        f"License: {project['license']['text']}",
    ]
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    lines.append("Description-Content-Type: text/markdown")
    with open(os.path.join(HERE, project["readme"]), encoding="utf-8") as f:
        readme = f.read()
    return "\n".join(lines) + "\n\n" + readme


def _package_files() -> list[tuple[str, bytes]]:
    out = []
    root = os.path.join(HERE, PACKAGE)
    for name in sorted(os.listdir(root)):
        if name.endswith(".py") or name == "py.typed":
            with open(os.path.join(root, name), "rb") as f:
                out.append((f"{PACKAGE}/{name}", f.read()))
    return out


def _timestamp() -> tuple[int, int, int, int, int, int]:
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))  # 1980-01-01, zip's earliest
    return time.gmtime(max(epoch, 315532800))[:6]


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(wheel_directory: str, config_settings: dict | None = None, metadata_directory: str | None = None) -> str:
    """PEP 517 hook: writes the wheel into ``wheel_directory`` and returns its file name."""
    project = _project()
    dist, version = _dist_name(project), project["version"]
    info = f"{dist}-{version}.dist-info"
    files = _package_files()
    files.append((f"{info}/METADATA", _metadata(project).encode()))
    files.append((f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: crucible build_wheel.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
    files.append((f"{info}/top_level.txt", f"{PACKAGE}\n".encode()))
    record = "".join(f"{path},{_record_hash(data)},{len(data)}\n" for path, data in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))

    name = f"{dist}-{version}-py3-none-any.whl"
    os.makedirs(wheel_directory, exist_ok=True)
    stamp = _timestamp()
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as zf:
        for path, data in files:
            entry = zipfile.ZipInfo(path, stamp)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(entry, data)
    return name


def build_sdist(sdist_directory: str, config_settings: dict | None = None) -> str:
    """PEP 517 hook: a source archive with the package, pyproject.toml, README and this file."""
    project = _project()
    base = f"{_dist_name(project)}-{project['version']}"
    members = [(f"{base}/{p}", d) for p, d in _package_files()]
    for extra in ("pyproject.toml", "README.md", "build_wheel.py"):
        with open(os.path.join(HERE, extra), "rb") as f:
            members.append((f"{base}/{extra}", f.read()))
    members.append((f"{base}/PKG-INFO", _metadata(project).encode()))
    name = f"{base}.tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    mtime = int(time.mktime(_timestamp() + (0, 0, -1)))
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tf:
        for path, data in members:
            info = tarfile.TarInfo(path)
            info.size, info.mtime, info.mode = len(data), mtime, 0o644
            tf.addfile(info, io.BytesIO(data))
    return name


def get_requires_for_build_wheel(config_settings: dict | None = None) -> list[str]:
    return []


def get_requires_for_build_sdist(config_settings: dict | None = None) -> list[str]:
    return []


def main(argv: list[str]) -> int:
    out = os.path.abspath(argv[1]) if len(argv) > 1 else os.path.join(HERE, "dist")
    os.makedirs(out, exist_ok=True)
    for old in os.listdir(out):
        if old.endswith(".whl"):
            os.remove(os.path.join(out, old))
    name = build_wheel(out)
    print(os.path.join(out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
