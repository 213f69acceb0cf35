"""Fail on an installed environment or lock file that does not look like ours.

Run it with `python -S` (as `make install`, `make test` and .ci/run do): without `site`, no .pth
file in site-packages runs before this check reads it, and nothing here imports a third-party
package; installed versions are read from the dist-info metadata on disk.

Checks:
1. every pin in requirements.lock carries at least one --hash (pip then refuses unhashed files);
2. site-packages holds no .pth file other than those named in ALLOWED_PTH, each installed by the
   distribution named beside it (the malicious litellm 1.82.7/1.82.8 releases shipped one);
3. litellm, when installed or locked, is inside the range pyproject.toml gives (>=1.83.7,<2);
4. site-packages holds no sitecustomize or usercustomize module (imported at every Python start);
5. every installed .py and .pth file a distribution's RECORD lists has the sha256 RECORD gives (an
   edited installed file fails; other files, shared libraries and data, are not hashed, to stay fast).

Exit 0 when all hold, 1 with one line per problem otherwise.
"""

from __future__ import annotations

import argparse
import base64
import csv
import fnmatch
import hashlib
import re
import sys
import sysconfig
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# .pth file name pattern -> the distribution that must list it in its RECORD.
ALLOWED_PTH = {
    "distutils-precedence.pth": "setuptools",
    "__editable__.accessbench-*.pth": "accessbench",
}
WATCHED = "litellm"


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _release(version: str) -> tuple[int, ...] | None:
    """A final release's numbers; None for anything else (pre-releases, local or odd versions)."""
    return tuple(int(p) for p in version.split(".")) if re.fullmatch(r"\d+(\.\d+)*", version) else None


def _pad(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    width = max(len(a), len(b))
    return a + (0,) * (width - len(a)), b + (0,) * (width - len(b))


def satisfies(version: str, spec: str) -> bool:
    """Does final release `version` satisfy a comma-separated specifier like '>=1.83.7,<2'?"""
    have = _release(version)
    if have is None:
        return False
    compare = {">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
               "<": lambda a, b: a < b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        match = re.fullmatch(r"(>=|<=|==|!=|>|<)\s*([\d.]+)", clause)
        want = _release(match.group(2)) if match else None
        if match is None or want is None:
            return False  # a specifier this check cannot read is a failure, not a pass
        if not compare[match.group(1)](*_pad(have, want)):
            return False
    return True


def watched_spec(pyproject: Path) -> str:
    data = tomllib.loads(pyproject.read_text())
    groups = [data["project"].get("dependencies", []), *data["project"].get("optional-dependencies", {}).values()]
    for requirement in (r for group in groups for r in group):
        match = re.match(rf"{WATCHED}\s*([^;]*)", requirement)
        if match:
            return match.group(1).strip()
    raise SystemExit(f"{pyproject} does not declare {WATCHED}; update .ci/check_supply_chain.py")


def installed(site: Path) -> dict[str, tuple[str, Path]]:
    """Distribution name -> (version, its .dist-info folder), read from METADATA files."""
    found = {}
    for info in site.glob("*.dist-info"):
        fields = dict(line.split(": ", 1) for line in (info / "METADATA").read_text(errors="replace").splitlines()
                      if ": " in line and line[:1].isalpha())
        if "Name" in fields and "Version" in fields:
            found[_norm(fields["Name"])] = (fields["Version"].strip(), info)
    return found


def _recorded(info: Path) -> set[str]:
    record = info / "RECORD"
    if not record.exists():
        return set()
    with record.open(newline="") as handle:
        return {row[0] for row in csv.reader(handle) if row}


def check_pth(site: Path, dists: dict[str, tuple[str, Path]]) -> list[str]:
    problems = []
    for pth in sorted(site.glob("*.pth")):
        owner = next((dist for pattern, dist in ALLOWED_PTH.items() if fnmatch.fnmatch(pth.name, pattern)), None)
        if owner is None:
            problems.append(f"unexpected .pth file {pth} (code in it runs at every Python start); remove it and "
                            "find which package installed it")
        elif _norm(owner) not in dists or pth.name not in _recorded(dists[_norm(owner)][1]):
            problems.append(f"{pth} is allowed only as installed by {owner}, whose RECORD does not list it")
    return problems


CUSTOMIZE = ("sitecustomize", "usercustomize")
HASHED = (".py", ".pth")  # what check_records hashes (measured: the full venv in a few seconds)


def check_customize(site: Path) -> list[str]:
    problems = []
    for name in CUSTOMIZE:
        for path in (site / f"{name}.py", site / name / "__init__.py"):
            if path.exists():
                problems.append(f"{path} is imported at every Python start and no dependency of ours installs one; "
                                "remove it and find what put it there")
    return problems


def _digest(path: Path) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(path.read_bytes()).digest()).rstrip(b"=").decode()


def check_records(site: Path, dists: dict[str, tuple[str, Path]]) -> list[str]:
    """Installed .py/.pth files whose content is not what their distribution's RECORD says."""
    problems = []
    for name, (_, info) in sorted(dists.items()):
        record = info / "RECORD"
        if not record.exists():
            continue
        with record.open(newline="") as handle:
            rows = [row for row in csv.reader(handle) if len(row) >= 2]
        for rel, hashed, *_ in rows:
            if not rel.endswith(HASHED) or not hashed.startswith("sha256="):
                continue
            path = site / rel
            if ".." in Path(rel).parts or not path.is_file():
                continue  # outside site-packages (scripts) or removed: not what runs at import
            if _digest(path) != hashed.removeprefix("sha256="):
                problems.append(f"{path} differs from what {name} installed (its RECORD's sha256); reinstall it: "
                                f"pip install --force-reinstall --no-deps {name}")
    return problems


def check_watched(dists: dict[str, tuple[str, Path]], spec: str) -> list[str]:
    if WATCHED not in dists:
        return []
    version = dists[WATCHED][0]
    if satisfies(version, spec):
        return []
    return [f"{WATCHED} {version} is installed; only {spec} is allowed (1.82.7 and 1.82.8 were malicious): "
            f"reinstall with: pip install --require-hashes -r requirements.lock"]


def check_lock(lock: Path, spec: str) -> list[str]:
    problems = []
    text = lock.read_text()
    pins = re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)((?:\s*\\\n\s+--hash=\S+)*)", text, re.MULTILINE)
    if not pins:
        problems.append(f"{lock} pins nothing; regenerate it with: make lock")
    for name, version, hashes in pins:
        if "--hash=" not in hashes:
            problems.append(f"{lock}: {name}=={version} has no --hash; regenerate the lock with: make lock")
        if _norm(name) == WATCHED and not satisfies(version, spec):
            problems.append(f"{lock} pins {name}=={version}, outside {spec}")
    return problems


def default_sites() -> list[Path]:
    """The site-packages folders `python` (without -S) would read .pth files from.

    Under -S, `site` has not switched sys.prefix to a virtualenv, so find pyvenv.cfg ourselves.
    """
    prefix = Path(sys.prefix)
    for candidate in (Path(sys.executable).parent.parent, Path(sys.executable).resolve().parent.parent):
        if (candidate / "pyvenv.cfg").exists():
            prefix = candidate
            break
    paths = sysconfig.get_paths(vars={"base": str(prefix), "platbase": str(prefix)})
    return sorted({Path(paths[k]) for k in ("purelib", "platlib")})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site-packages", type=Path, action="append",
                        help="folder to inspect (default: this interpreter's purelib and platlib)")
    parser.add_argument("--lock", type=Path, default=ROOT / "requirements.lock")
    parser.add_argument("--pyproject", type=Path, default=ROOT / "pyproject.toml")
    parser.add_argument("--lock-only", action="store_true", help="check the lock file, not an environment")
    args = parser.parse_args(argv)
    spec = watched_spec(args.pyproject)
    sites = [] if args.lock_only else args.site_packages or default_sites()
    problems = check_lock(args.lock, spec)
    for site in sites:
        dists = installed(site)
        problems += (check_pth(site, dists) + check_watched(dists, spec) + check_customize(site)
                     + check_records(site, dists))
    for problem in problems:
        print(f"supply-chain check: {problem}", file=sys.stderr)
    if not problems:
        where = ", ".join(map(str, sites)) or "lock file only"
        print(f"supply-chain check: ok ({where}; {WATCHED} {spec}; hashed lock)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
