"""Amazon Transcribe (backend ``aws-transcribe``): a recorded screen-reader session, one row per spoken segment.

boto3 is optional and imported on first use. Nothing is written except the audio upload to the given S3 bucket.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from pathlib import Path
from typing import Any

from extractors.transcript.base import AWS_INSTALL, MAX_TEXT, TRANSCRIBERS, TranscriptError, clean_text, cut_text

# Amazon Transcribe's MediaFormat for each file suffix it accepts.
_MEDIA_FORMATS = {
    ".mp3": "mp3", ".mp4": "mp4", ".m4a": "m4a", ".wav": "wav", ".flac": "flac", ".ogg": "ogg",
    ".amr": "amr", ".webm": "webm",
}
_TRANSIENT_CODES = frozenset({
    "ThrottlingException", "Throttling", "TooManyRequestsException", "LimitExceededException",
    "SlowDown", "RequestTimeout", "ServiceUnavailable", "InternalFailureException", "InternalError",
})
_SENTENCE_END = frozenset(".?!")


def _boto3() -> Any:
    """Import boto3 on first use: it is an optional dependency."""
    try:
        import boto3
    except ImportError as exc:
        raise TranscriptError(f"the 'aws-transcribe' backend needs boto3: {AWS_INSTALL}") from exc
    return boto3


@TRANSCRIBERS.register("aws-transcribe")
def transcribe_audio(audio_path: str | Path, *, doc_id: str, bucket: str, key_prefix: str = "accessbench/",
                     language: str = "en-US", s3_client: Any = None, transcribe_client: Any = None,
                     poll_s: float = 5, timeout_s: float = 900) -> list[dict]:
    """Transcribe a recorded screen-reader session with Amazon Transcribe, one row per spoken segment.

    Uploads ``audio_path`` to ``s3://bucket/<key_prefix>audio/``, starts a transcription
    job with a unique name that writes its JSON to ``<key_prefix>transcripts/`` in the
    same bucket, polls every ``poll_s`` seconds until it completes, fails, or
    ``timeout_s`` passes, then reads and parses the JSON. Rows have role ``speech``, the
    spoken text as ``announcement`` and a null page. Credentials come from boto3's
    default chain (environment, profile, instance role); pass clients to use others.
    Raises TranscriptError (``transient`` says whether a retry may help).
    """
    path = Path(audio_path)
    if not path.is_file():
        raise TranscriptError(f"no audio file at {path}: record the screen reader session first")
    media_format = _MEDIA_FORMATS.get(path.suffix.lower())
    if media_format is None:
        raise TranscriptError(f"Amazon Transcribe cannot read {path.suffix or 'suffix-less'} files; "
                              f"convert the recording to one of {', '.join(sorted(_MEDIA_FORMATS))}")
    if s3_client is None or transcribe_client is None:
        boto3 = _boto3()
        s3_client = s3_client or boto3.client("s3")
        transcribe_client = transcribe_client or boto3.client("transcribe")
    client_error = _client_error_type()
    # Transcribe job names are unique per account and region and allow only [0-9A-Za-z._-].
    job = f"accessbench-{re.sub(r'[^0-9A-Za-z._-]+', '-', doc_id)[:80]}-{uuid.uuid4().hex[:12]}"
    audio_key = f"{key_prefix}audio/{job}{path.suffix.lower()}"
    output_key = f"{key_prefix}transcripts/{job}.json"
    try:
        with path.open("rb") as body:
            s3_client.put_object(Bucket=bucket, Key=audio_key, Body=body)
        transcribe_client.start_transcription_job(
            TranscriptionJobName=job,
            LanguageCode=language,
            MediaFormat=media_format,
            Media={"MediaFileUri": f"s3://{bucket}/{audio_key}"},
            OutputBucketName=bucket,
            OutputKey=output_key,
        )
        _wait_for_job(transcribe_client, job, poll_s, timeout_s)
        body = s3_client.get_object(Bucket=bucket, Key=output_key)["Body"].read()
    except client_error as exc:
        code = getattr(exc, "response", {}).get("Error", {}).get("Code", "")
        raise TranscriptError(f"AWS refused a transcription step for job {job} ({code}: {exc}); "
                              "check the bucket, region and IAM permissions",
                              transient=code in _TRANSIENT_CODES) from exc
    try:
        transcript = json.loads(body)
    except ValueError as exc:
        raise TranscriptError(f"the transcript of job {job} at s3://{bucket}/{output_key} is not JSON") from exc
    return [
        {"doc_id": doc_id, "seq": i, "page": None, "announcement": segment, "role": "speech", "element": None,
         "level": None, "text": cut_text(segment, MAX_TEXT)}
        for i, segment in enumerate(_segments(transcript))
    ]


def _client_error_type() -> type[Exception]:
    try:
        from botocore.exceptions import ClientError
    except ImportError as exc:
        raise TranscriptError(f"the 'aws-transcribe' backend needs botocore: {AWS_INSTALL}") from exc
    return ClientError


def _wait_for_job(client: Any, job: str, poll_s: float, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        status = client.get_transcription_job(TranscriptionJobName=job)["TranscriptionJob"]
        state = status.get("TranscriptionJobStatus")
        if state == "COMPLETED":
            return
        if state == "FAILED":
            reason = status.get("FailureReason", "no reason given")
            raise TranscriptError(f"Amazon Transcribe job {job} failed: {reason}; "
                                  "check that the recording plays and its format matches its suffix")
        if time.monotonic() >= deadline:
            raise TranscriptError(f"Amazon Transcribe job {job} was still {state} after {timeout_s:g} s; "
                                  "poll it again later or raise timeout_s", transient=True)
        time.sleep(poll_s)


def _segments(transcript: dict) -> list[str]:
    """Spoken segments from Transcribe's JSON: its audio segments, else sentences from its items."""
    results = transcript.get("results", {}) if isinstance(transcript, dict) else {}
    segments = [clean_text(s.get("transcript", "")) for s in results.get("audio_segments") or []]
    if any(segments):
        return [s for s in segments if s]
    sentences: list[str] = []
    words: list[str] = []
    for item in results.get("items") or []:
        alternatives = item.get("alternatives") or [{}]
        content = alternatives[0].get("content", "")
        if item.get("type") == "punctuation" and words:
            words[-1] += content  # punctuation attaches to the word before it
        elif content:
            words.append(content)
        if content in _SENTENCE_END and words:
            sentences.append(" ".join(words))
            words = []
    if words:
        sentences.append(" ".join(words))
    if sentences:
        return sentences
    whole = [clean_text(t.get("transcript", "")) for t in results.get("transcripts") or []]
    return [t for t in whole if t]
