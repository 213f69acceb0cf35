"""Amazon Transcribe backend, driven through botocore's Stubber on real boto3 clients (no network)."""

from __future__ import annotations

import io
import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from extractors.transcript import TranscriptError, transcribe_audio
from tests.extractors.conftest import assert_fits
from warehouse.tables import TRANSCRIPT_SCHEMA

boto3 = pytest.importorskip("boto3", reason="the aws-transcribe backend needs boto3: pip install 'accessbench[aws]'")
from botocore.response import StreamingBody  # noqa: E402  (only importable with boto3)
from botocore.stub import ANY, Stubber  # noqa: E402

SECRET = "test-secret-key-that-must-never-be-printed"
BUCKET = "accessbench-test"
TRANSCRIPT_JSON = {
    "jobName": "job",
    "results": {
        "transcripts": [{"transcript": "Heading level one, Study report. Link, see the project archive."}],
        "items": [
            {"type": "pronunciation", "alternatives": [{"content": "Heading"}]},
            {"type": "pronunciation", "alternatives": [{"content": "level"}]},
            {"type": "pronunciation", "alternatives": [{"content": "one"}]},
            {"type": "punctuation", "alternatives": [{"content": ","}]},
            {"type": "pronunciation", "alternatives": [{"content": "Study"}]},
            {"type": "pronunciation", "alternatives": [{"content": "report"}]},
            {"type": "punctuation", "alternatives": [{"content": "."}]},
            {"type": "pronunciation", "alternatives": [{"content": "Link"}]},
            {"type": "punctuation", "alternatives": [{"content": ","}]},
            {"type": "pronunciation", "alternatives": [{"content": "see"}]},
            {"type": "pronunciation", "alternatives": [{"content": "the"}]},
            {"type": "pronunciation", "alternatives": [{"content": "project"}]},
            {"type": "pronunciation", "alternatives": [{"content": "archive"}]},
            {"type": "punctuation", "alternatives": [{"content": "."}]},
        ],
    },
    "status": "COMPLETED",
}


@pytest.fixture(autouse=True)
def dummy_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Credentials and region from the environment only; no profile files are read."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)


@pytest.fixture
def audio(tmp_path: Path) -> Path:
    path = tmp_path / "nvda-session.wav"
    path.write_bytes(b"RIFF\x24\x00\x00\x00WAVEfmt ")  # the stubs never look inside
    return path


@pytest.fixture
def clients() -> tuple[Any, Any, dict[str, list[dict]]]:
    """Real boto3 clients, plus every call's parameters as the code passed them."""
    s3 = boto3.client("s3", region_name="us-east-1")
    transcribe = boto3.client("transcribe", region_name="us-east-1")
    sent: dict[str, list[dict]] = {}

    def record(params: dict, model: Any, **kwargs: Any) -> None:
        sent.setdefault(model.name, []).append(dict(params))

    for client in (s3, transcribe):
        client.meta.events.register("provide-client-params.*.*", record)
    return s3, transcribe, sent


def job_status(state: str, **extra: Any) -> dict:
    return {"TranscriptionJob": {"TranscriptionJobName": "job", "TranscriptionJobStatus": state, **extra}}


def stub_upload_and_start(s3_stub: Stubber, transcribe_stub: Stubber) -> None:
    s3_stub.add_response("put_object", {}, {"Bucket": BUCKET, "Key": ANY, "Body": ANY})
    transcribe_stub.add_response(
        "start_transcription_job",
        job_status("QUEUED"),
        {
            "TranscriptionJobName": ANY,
            "LanguageCode": "en-US",
            "MediaFormat": "wav",
            "Media": {"MediaFileUri": ANY},
            "OutputBucketName": BUCKET,
            "OutputKey": ANY,
        },
    )


def test_uploads_starts_polls_and_parses_the_transcript(audio: Path, clients: tuple, caplog: Any) -> None:
    s3, transcribe, sent = clients
    body = json.dumps(TRANSCRIPT_JSON).encode()
    caplog.set_level(logging.DEBUG)
    with Stubber(s3) as s3_stub, Stubber(transcribe) as transcribe_stub:
        stub_upload_and_start(s3_stub, transcribe_stub)
        for state in ("IN_PROGRESS", "IN_PROGRESS", "COMPLETED"):
            transcribe_stub.add_response("get_transcription_job", job_status(state), {"TranscriptionJobName": ANY})
        s3_stub.add_response("get_object", {"Body": StreamingBody(io.BytesIO(body), len(body))},
                             {"Bucket": BUCKET, "Key": ANY})
        rows = transcribe_audio(audio, doc_id="alt_text/failed/W1.pdf", bucket=BUCKET, s3_client=s3,
                                transcribe_client=transcribe, poll_s=0)
        s3_stub.assert_no_pending_responses()
        transcribe_stub.assert_no_pending_responses()

    assert_fits(rows, TRANSCRIPT_SCHEMA)
    assert [r["announcement"] for r in rows] == ["Heading level one, Study report.", "Link, see the project archive."]
    assert {(r["role"], r["page"], r["element"]) for r in rows} == {("speech", None, None)}
    assert [r["seq"] for r in rows] == [0, 1]

    upload, = sent["PutObject"]
    start, = sent["StartTranscriptionJob"]
    polls = sent["GetTranscriptionJob"]
    fetch, = sent["GetObject"]
    assert upload["Key"].startswith("accessbench/audio/") and upload["Key"].endswith(".wav")
    assert start["Media"]["MediaFileUri"] == f"s3://{BUCKET}/{upload['Key']}"
    assert {p["TranscriptionJobName"] for p in polls} == {start["TranscriptionJobName"]}
    assert (fetch["Bucket"], fetch["Key"]) == (start["OutputBucketName"], start["OutputKey"])
    assert all(c.isalnum() or c in "._-" for c in start["TranscriptionJobName"])  # Transcribe's name rule
    assert SECRET not in caplog.text


def test_job_names_are_unique_per_call(audio: Path, clients: tuple) -> None:
    s3, transcribe, sent = clients
    for _ in range(2):
        with Stubber(s3) as s3_stub, Stubber(transcribe) as transcribe_stub:
            stub_upload_and_start(s3_stub, transcribe_stub)
            transcribe_stub.add_response("get_transcription_job", job_status("FAILED", FailureReason="x"),
                                         {"TranscriptionJobName": ANY})
            with pytest.raises(TranscriptError):
                transcribe_audio(audio, doc_id="same", bucket=BUCKET, s3_client=s3, transcribe_client=transcribe,
                                 poll_s=0)
    first, second = (p["TranscriptionJobName"] for p in sent["StartTranscriptionJob"])
    assert first != second


def test_failed_job_raises_a_terminal_error_with_the_reason(audio: Path, clients: tuple) -> None:
    s3, transcribe, _ = clients
    with Stubber(s3) as s3_stub, Stubber(transcribe) as transcribe_stub:
        stub_upload_and_start(s3_stub, transcribe_stub)
        transcribe_stub.add_response(
            "get_transcription_job",
            job_status("FAILED", FailureReason="The media format provided does not match the detected media format"),
            {"TranscriptionJobName": ANY},
        )
        with pytest.raises(TranscriptError, match="does not match the detected media format") as caught:
            transcribe_audio(audio, doc_id="d", bucket=BUCKET, s3_client=s3, transcribe_client=transcribe, poll_s=0)
    assert caught.value.transient is False
    assert SECRET not in str(caught.value)


def test_job_still_running_at_the_deadline_raises_a_transient_timeout(audio: Path, clients: tuple) -> None:
    s3, transcribe, _ = clients
    with Stubber(s3) as s3_stub, Stubber(transcribe) as transcribe_stub:
        stub_upload_and_start(s3_stub, transcribe_stub)
        transcribe_stub.add_response("get_transcription_job", job_status("IN_PROGRESS"), {"TranscriptionJobName": ANY})
        with pytest.raises(TranscriptError, match="still IN_PROGRESS") as caught:
            transcribe_audio(audio, doc_id="d", bucket=BUCKET, s3_client=s3, transcribe_client=transcribe,
                             poll_s=0, timeout_s=0)
        transcribe_stub.assert_no_pending_responses()
    assert caught.value.transient is True


@pytest.mark.parametrize(("code", "transient"), [("AccessDenied", False), ("SlowDown", True)])
def test_aws_refusals_become_transcript_errors(audio: Path, clients: tuple, code: str, transient: bool) -> None:
    s3, transcribe, _ = clients
    with Stubber(s3) as s3_stub:
        s3_stub.add_client_error("put_object", service_error_code=code, service_message="refused")
        with pytest.raises(TranscriptError, match=code) as caught:
            transcribe_audio(audio, doc_id="d", bucket=BUCKET, s3_client=s3, transcribe_client=transcribe)
    assert caught.value.transient is transient


def test_audio_segments_are_preferred_when_transcribe_returns_them(audio: Path, clients: tuple) -> None:
    s3, transcribe, _ = clients
    result = {"results": {"audio_segments": [{"id": 0, "transcript": "list, 3 items"},
                                             {"id": 1, "transcript": "list item, 1 of 3, first item"}],
                          "items": [], "transcripts": [{"transcript": "list, 3 items list item"}]}}
    body = json.dumps(result).encode()
    with Stubber(s3) as s3_stub, Stubber(transcribe) as transcribe_stub:
        stub_upload_and_start(s3_stub, transcribe_stub)
        transcribe_stub.add_response("get_transcription_job", job_status("COMPLETED"), {"TranscriptionJobName": ANY})
        s3_stub.add_response("get_object", {"Body": StreamingBody(io.BytesIO(body), len(body))},
                             {"Bucket": BUCKET, "Key": ANY})
        rows = transcribe_audio(audio, doc_id="d", bucket=BUCKET, s3_client=s3, transcribe_client=transcribe)
    assert [r["announcement"] for r in rows] == ["list, 3 items", "list item, 1 of 3, first item"]


def test_bad_input_is_refused_before_any_call(tmp_path: Path, clients: tuple) -> None:
    s3, transcribe, sent = clients
    with pytest.raises(TranscriptError, match="no audio file"):
        transcribe_audio(tmp_path / "missing.wav", doc_id="d", bucket=BUCKET, s3_client=s3,
                         transcribe_client=transcribe)
    text = tmp_path / "notes.txt"
    text.write_text("not audio")
    with pytest.raises(TranscriptError, match="convert the recording"):
        transcribe_audio(text, doc_id="d", bucket=BUCKET, s3_client=s3, transcribe_client=transcribe)
    assert sent == {}


def test_missing_boto3_says_what_to_install(audio: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "boto3", None)  # makes `import boto3` fail
    with pytest.raises(TranscriptError, match=r"pip install 'accessbench\[aws\]'"):
        transcribe_audio(audio, doc_id="d", bucket=BUCKET)
