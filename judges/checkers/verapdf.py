"""checker:verapdf — a veraPDF command line the user installed (veraPDF is a Java application: not on PyPI).

Found by `--checker-path` (the `verapdf` launcher) or on PATH. Each file is validated against the PDF/UA-1
profile with a machine-readable XML report on stdout:

    verapdf --flavour ua1 --format xml --maxfailuresdisplayed 50 FILE

The report's rules are ISO 14289-1 clauses and test numbers ("7.3-1"); each failed check has a context path
(`root/document[0]/pages[2](…)/…`: page 3) and an error message. veraPDF exits 0 (compliant) or 1 (not);
anything else, or a report without a validation result, is a file it could not check.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from judges.checkers import CHECKERS, CheckerRun, CheckerUnavailable, Finding

INSTALL = ("install veraPDF (the veraPDF project's installer; it needs Java) and put `verapdf` on PATH, or pass "
           "--checker-path /path/to/verapdf")
FAILURES_SHOWN = 50  # failed checks veraPDF reports per rule
TIMEOUT_S = 300.0
_PAGE = re.compile(r"pages\[(\d+)\]")
_VERSION = re.compile(r"\d+(?:\.\d+)+")
_REPORT_MB = 64


class VeraPdf:
    name = "verapdf"

    def __init__(self, path: str | None = None) -> None:
        self.path = path

    def executable(self) -> str:
        """The veraPDF launcher to run (CheckerUnavailable, saying how to install it, when there is none)."""
        if self.path:
            found = Path(self.path).expanduser()
            if found.is_file() and os.access(found, os.X_OK):
                return str(found)
            raise CheckerUnavailable(f"--checker-path {self.path} is not an executable file: {INSTALL}")
        on_path = shutil.which("verapdf")
        if on_path is None:
            raise CheckerUnavailable(f"veraPDF is not installed (no `verapdf` on PATH): {INSTALL}")
        return on_path

    def version(self) -> str:
        exe = self.executable()
        try:
            done = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise CheckerUnavailable(f"{exe} --version did not answer ({type(exc).__name__}): {INSTALL}") from None
        found = _VERSION.search(done.stdout or "")
        if done.returncode != 0 or found is None:
            raise CheckerUnavailable(f"{exe} --version printed no veraPDF version (exit {done.returncode}): {INSTALL}")
        return found.group(0)

    def check(self, path: str) -> CheckerRun:
        exe = self.executable()
        started = time.perf_counter()
        try:
            done = subprocess.run([exe, "--flavour", "ua1", "--format", "xml", "--maxfailuresdisplayed",
                                   str(FAILURES_SHOWN), path], capture_output=True, timeout=TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            return CheckerRun(seconds=time.perf_counter() - started, error=f"veraPDF ran over {TIMEOUT_S:.0f} s")
        seconds = time.perf_counter() - started
        if done.returncode not in (0, 1):
            why = (done.stderr or b"").decode("utf-8", "replace").strip().splitlines()
            return CheckerRun(seconds=seconds, error=f"veraPDF exited {done.returncode}"
                              + (f": {why[-1][:200]}" if why else ""))
        if len(done.stdout) > _REPORT_MB << 20:
            return CheckerRun(seconds=seconds, error=f"veraPDF's report is over {_REPORT_MB} MB")
        return read_report(done.stdout, seconds)


def read_report(xml: bytes, seconds: float = 0.0) -> CheckerRun:
    """A veraPDF machine-readable XML report → the run (an error run when it holds no validation result)."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        return CheckerRun(seconds=seconds, error=f"veraPDF's report is not XML ({exc})")
    core = root.find(".//buildInformation/releaseDetails[@id='core']")
    version = core.get("version", "") if core is not None else ""
    report = root.find(".//validationReport")
    if report is None:
        problem = root.find(".//taskException/exceptionMessage")
        why = (problem.text or "").strip() if problem is not None else "no validationReport in the report"
        return CheckerRun(seconds=seconds, error=f"veraPDF could not validate the file: {why[:200]}", version=version)
    findings, outcomes = [], {}
    for rule in report.iter("rule"):
        rule_id = f"{rule.get('clause', '?')}-{rule.get('testNumber', '?')}"
        failed = rule.get("status") == "failed"
        outcomes[rule_id] = "fail" if failed else "pass"
        if not failed:
            continue
        description = (rule.findtext("description") or "").strip()
        checks: list[ET.Element | None] = [c for c in rule.iter("check") if c.get("status") == "failed"]
        for check in checks or [None]:
            context = (check.findtext("context") or "").strip() if check is not None else ""
            message = (check.findtext("errorMessage") or "").strip() if check is not None else ""
            on_page = _PAGE.search(context)
            findings.append(Finding(rule=rule_id, severity="error", message=message or description,
                                    page=int(on_page.group(1)) + 1 if on_page else None, location=context[:300]))
        shown, total = len(checks), int(rule.get("failedChecks") or 0)
        if checks and total > shown:
            findings.append(Finding(rule=rule_id, severity="error", message=f"{description} ({total - shown} more "
                                    "failed checks of this rule not listed by veraPDF)", count=total - shown))
    return CheckerRun(findings=findings, outcomes=outcomes, seconds=seconds, version=version)


@CHECKERS.register("verapdf")
def _make(argument: str | None, options: dict[str, Any]) -> VeraPdf:
    return VeraPdf(options.get("checker_path"))
