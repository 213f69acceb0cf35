"""The HTML report in a real browser: no console errors, every image loads, axe-core finds nothing.

Needs Debian's `chromium` and axe-core from `tests/browser/` (`npm ci` there); skipped with a
message saying so when either is missing, unless ACCESSBENCH_BROWSER_TESTS=required (CI sets it
after installing both), which turns the skip into a failure.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from flows.cli.report import build
from tests.flows.report_warehouse import AUDIT, BENCH, SCREEN
from tests.flows.report_warehouse import build as build_warehouse

# Each test starts Chromium and renders a whole report (seconds each): make test runs them, make test-fast not.
pytestmark = pytest.mark.heavy

AXE = Path(__file__).resolve().parents[1] / "browser" / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser")) if p), None)

# Installed first in <head>: records errors, console errors and alert() calls before the report's own script.
PROBE = """<script>
window.__probe = {errors: [], console: [], alerts: []};
window.addEventListener('error', function (e) {
  var t = e.target; window.__probe.errors.push(t && t.tagName ? t.tagName + ' failed: ' + (t.src || '').slice(0, 80)
                                                                : String(e.message));
}, true);
var origError = console.error;
console.error = function () { window.__probe.console.push(Array.prototype.join.call(arguments, ' '));
                              origError.apply(console, arguments); };
window.alert = function (m) { window.__probe.alerts.push(String(m)); };
</script>"""

RUNNER = """<script>
window.addEventListener('load', function () {
  // Lazily loaded page images load when scrolled to: load them all now, then check each one.
  var images = Array.prototype.slice.call(document.images);
  images.forEach(function (img) { img.loading = 'eager'; });
  Promise.all(images.map(function (img) {
    return img.complete ? null : new Promise(function (done) {
      img.addEventListener('load', done); img.addEventListener('error', done); });
  })).then(function () {
    return axe.run(document, {resultTypes: ['violations']});
  }).then(function (result) {
    var broken = images.filter(function (img) { return !(img.complete && img.naturalWidth > 0); })
                       .map(function (img) { return img.alt.slice(0, 80); });
    var out = document.createElement('pre'); out.id = 'probe-result';
    out.textContent = JSON.stringify({
      images: document.images.length, broken: broken, probe: window.__probe,
      violations: result.violations.map(function (v) {
        return {id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 3).map(function (n) { return n.html.slice(0, 160); })}; })});
    document.body.appendChild(out);
  });
});
</script>"""


def _require_browser() -> str:
    missing = [what for what, ok in (("Debian's chromium (apt-get install chromium)", CHROMIUM),
                                     ("axe-core (cd tests/browser && npm ci)", AXE.is_file())) if not ok]
    if missing:
        message = "browser test needs " + " and ".join(missing)
        if os.environ.get("ACCESSBENCH_BROWSER_TESTS") == "required":
            pytest.fail(message)
        pytest.skip(message)
    assert CHROMIUM
    return CHROMIUM


def _run_in_chromium(chromium: str, page: Path, profile: Path) -> dict[str, object]:
    proc = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", f"--user-data-dir={profile}",
         "--virtual-time-budget=60000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=180, check=False)
    found = re.search(r'<pre id="probe-result">(.*?)</pre>', proc.stdout, re.S)
    assert found, f"axe did not finish in Chromium (exit {proc.returncode}): {proc.stderr[-2000:]}"
    result: dict[str, object] = json.loads(html.unescape(found.group(1)))
    return result


def test_report_in_chromium_has_no_errors_loads_every_image_and_passes_axe(tmp_path: Path) -> None:
    chromium = _require_browser()
    home = build_warehouse(tmp_path / "home")
    report = build(home, [BENCH, SCREEN, AUDIT], "html", page_images=True)
    page = tmp_path / "report.html"
    script = f"<script>{AXE.read_text(encoding='utf-8')}</script>{RUNNER}"
    page.write_text(report.replace("<head>", "<head>" + PROBE, 1).replace("</body>", script + "</body>", 1),
                    encoding="utf-8")
    result = _run_in_chromium(chromium, page, tmp_path / "profile")
    probe = result["probe"]
    assert isinstance(probe, dict)
    assert result["violations"] == [], json.dumps(result["violations"], indent=1)
    assert result["broken"] == [] and probe["errors"] == []
    assert probe["console"] == []
    assert probe["alerts"] == []  # the file name and model text with markup stayed text
    # charts (leaderboard bars, pooled and per-criterion confusion matrices) and the outlined page
    assert isinstance(result["images"], int) and result["images"] >= 5


def _screenshot(chromium: str, page: Path, out: Path, profile: Path) -> None:
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                    f"--user-data-dir={profile}", "--window-size=1280,4000", "--virtual-time-budget=20000",
                    f"--screenshot={out}", page.as_uri()],
                   capture_output=True, text=True, timeout=180, check=False)


@pytest.mark.parametrize("kind", ["benchmark", "multi-run", "hybrid", "audit", "screening"])
def test_each_report_kind_passes_axe_stays_small_and_shows_in_a_screenshot(tmp_path: Path, kind: str) -> None:
    """Each kind of report in Chromium: axe-core finds nothing, every image loads, the file is under 2 MB (16
    screened files for the screening kind), and a screenshot is taken (kept under ACCESSBENCH_SCREENSHOTS)."""
    from tests.flows.test_report_compare import SMALL, _screening_home, _small_run

    chromium = _require_browser()
    home = build_warehouse(tmp_path / "home")
    _small_run(home)
    if kind == "screening":
        _screening_home(home)
    runs = {"benchmark": [BENCH], "multi-run": [BENCH, SMALL], "hybrid": [SMALL], "audit": [AUDIT],
            "screening": ["many"]}[kind]
    report = build(home, runs, "html", page_images=True)
    assert len(report.encode()) < 2_000_000
    if kind in ("benchmark", "multi-run", "hybrid"):
        assert "Tables 3–5 beside the published models" in report
    plain = tmp_path / f"{kind}.html"
    plain.write_text(report, encoding="utf-8")
    shot = Path(os.environ.get("ACCESSBENCH_SCREENSHOTS") or tmp_path) / f"report-{kind}.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    _screenshot(chromium, plain, shot, tmp_path / "shot-profile")
    assert shot.is_file() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = tmp_path / f"{kind}-axe.html"
    script = f"<script>{AXE.read_text(encoding='utf-8')}</script>{RUNNER}"
    page.write_text(report.replace("<head>", "<head>" + PROBE, 1).replace("</body>", script + "</body>", 1),
                    encoding="utf-8")
    result = _run_in_chromium(chromium, page, tmp_path / "profile")
    assert result["violations"] == [], json.dumps(result["violations"], indent=1)
    assert result["broken"] == []
