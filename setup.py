"""Build hook only; the metadata lives in pyproject.toml.

The wheel carries the gate's Rego policies (all of ``policies/``, tests and the Pulumi policy pack
included) and the report templates (``templates/*.j2``) inside the package, as
``seedance/_bundled/policies`` and ``seedance/_bundled/templates``, where
``seedance.resources`` finds them in an installed copy.  The repository keeps them at the top level;
this command copies them into the build tree.  Editable installs skip the copy and read the checkout.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
TARGET = Path("seedance") / "_bundled"
# top-level directory -> glob patterns of the files it contributes
BUNDLED: dict[str, tuple[str, ...]] = {
    "policies": ("**/*",),
    "templates": ("**/*.j2",),
}
SKIP_PARTS = {"__pycache__"}
SKIP_SUFFIXES = {".pyc", ".pyo"}


def bundled_files() -> list[tuple[Path, Path]]:
    """(source, destination relative to the build root) for every file the package must carry."""
    pairs: list[tuple[Path, Path]] = []
    for name, patterns in BUNDLED.items():
        src_dir = ROOT / name
        if not src_dir.is_dir():
            raise SystemExit(f"setup.py: {src_dir} is missing; the package cannot be built without it")
        for pattern in patterns:
            for path in sorted(src_dir.glob(pattern)):
                rel = path.relative_to(ROOT)
                if not path.is_file() or SKIP_PARTS & set(rel.parts) or path.suffix in SKIP_SUFFIXES:
                    continue
                pairs.append((path, TARGET / rel))
    return pairs


class BuildPyWithBundled(build_py):
    """build_py that also copies policies/ and templates/ into seedance/_bundled/."""

    def run(self) -> None:
        target = Path(self.build_lib) / TARGET
        if target.exists():  # build/ persists between builds: never ship files deleted since
            shutil.rmtree(target)
        super().run()
        if self.editable_mode:  # an editable install reads the checkout's directories directly
            return
        for src, rel in bundled_files():
            dest = Path(self.build_lib) / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            self.copy_file(str(src), str(dest), preserve_mode=False)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = list(super().get_outputs(include_bytecode))
        if not self.editable_mode:
            outputs += [str(Path(self.build_lib) / rel) for _, rel in bundled_files()]
        return outputs


setup(cmdclass={"build_py": BuildPyWithBundled})
