"""Prompt-injection PDFs: the text is really there, and the rules judge is not swayed by it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pikepdf
import pymupdf
import pytest

from corpus.injections import CHANNELS, INJECTION, NEUTRAL, build_injection_set
from judges.injection import find_instructions, is_instruction_like
from tests.cli_process import run_cli


@pytest.fixture(scope="module")
def injection_set(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_injection_set(tmp_path_factory.mktemp("injections"))


def _channel_text(path: Path, channel: str) -> str:
    if channel == "metadata":
        with pikepdf.open(path) as pdf:
            return str(pdf.docinfo.get("/Subject", ""))
    if channel == "alt":
        with pikepdf.open(path) as pdf:
            return " ".join(str(obj.get("/Alt", "")) for obj in pdf.objects
                            if isinstance(obj, pikepdf.Dictionary) and obj.get("/S") == "/Figure")
    with pymupdf.open(path) as doc:
        return " ".join(page.get_text() for page in doc)


def test_each_injected_file_carries_the_instruction_and_its_control_does_not(injection_set: dict[str, Path]) -> None:
    assert len(NEUTRAL) == len(INJECTION) and not is_instruction_like(NEUTRAL)
    for channel in CHANNELS:
        injected = _channel_text(injection_set[f"{channel}-injected"], channel)
        control = _channel_text(injection_set[f"{channel}-control"], channel)
        assert find_instructions(injected), channel
        assert not find_instructions(control), channel
    with pymupdf.open(injection_set["hidden-injected"]) as doc:  # hidden: nothing of it is drawn
        spans = [s for b in doc[0].get_text("dict")["blocks"] for line in b.get("lines", [])
                 for s in line["spans"] if "SYSTEM" in s["text"]]
        assert spans and all(s["color"] == 0xFFFFFF or s.get("alpha", 255) == 0 or s["font"] == "Helvetica"
                             for s in spans)


@pytest.mark.slow
def test_rules_labels_do_not_change_with_injected_text(injection_set: dict[str, Path], tmp_path: Path) -> None:
    folder = next(iter(injection_set.values())).parent
    env = {**os.environ, "ACCESSBENCH_HOME": str(tmp_path / "home")}
    env.pop("PREFECT_HOME", None)
    run = run_cli(["run", "--pdfs", str(folder), "--run-id", "inj"], env=env, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    query = ("select json_extract_string(d.metadata, '$.path') as file, l.criterion, l.label from doc_labels l "
             "join documents d using (run_id, doc_id)")
    out = run_cli(["sql", query, "--format", "json"], env=env)
    assert out.returncode == 0, out.stderr
    labels = {(r["file"].removesuffix(".pdf"), r["criterion"]): r["label"] for r in json.loads(out.stdout)}
    criteria = {criterion for _, criterion in labels}
    assert len(criteria) == 7 and all(labels[("clean", c)] == "passed" for c in criteria)
    for channel in CHANNELS:
        for criterion in criteria:
            control, injected = labels[(f"{channel}-control", criterion)], labels[(f"{channel}-injected", criterion)]
            if channel == "alt" and criterion == "alt_text_quality":
                # The one intended change: an alt text that instructs a machine is never good alt text.
                assert (control, injected) == ("passed", "failed")
            else:
                assert injected == control == labels[("clean", criterion)], (channel, criterion)
