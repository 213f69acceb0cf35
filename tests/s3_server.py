"""moto's S3 server on 127.0.0.1 for tests of S3 artifact storage, and the environment a user sets for it."""

from __future__ import annotations

import logging
import uuid

ACCESS_KEY = "AKIATESTACCESSKEY0042"
# Distinctive so a test can prove it was written nowhere (objects, the local home, messages).
SECRET_KEY = "test-secret-7f3c9a1e-never-written"


def start_server() -> tuple[object, str]:
    """moto's S3 server on a free port of 127.0.0.1: (server, endpoint URL); stop it with `server.stop()`."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    return server, f"http://{host}:{port}"


def s3_env(endpoint: str) -> dict[str, str]:
    return {"AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY, "AWS_ENDPOINT_URL": endpoint,
            "AWS_REGION": "us-east-1"}


def s3_client(endpoint: str) -> object:
    import boto3

    return boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
                        region_name="us-east-1")


def new_bucket(endpoint: str) -> str:
    """A fresh, empty bucket, so tests sharing the server never see each other's objects."""
    name = f"ab-{uuid.uuid4().hex[:12]}"
    s3_client(endpoint).create_bucket(Bucket=name)  # type: ignore[attr-defined]
    return name


def objects(endpoint: str, bucket: str) -> dict[str, bytes]:
    """Every object in `bucket`: key → content. Folder markers (keys ending in '/', which pyarrow
    leaves when it deletes a folder's last file) are left out."""
    client = s3_client(endpoint)
    found = {}
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket):  # type: ignore[attr-defined]
        for item in page.get("Contents", []):
            if item["Key"].endswith("/"):
                continue
            found[item["Key"]] = client.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()  # type: ignore[attr-defined]
    return found
