"""Issue 39's row: the URL list written to a local S3 server (moto's, on 127.0.0.1, run in this
process: its CPU is not the child's) against a floor that uploads the same files with the same
client (s3fs's put_file, the index last), beside the same run to a local folder and a second
run that finds the bucket unchanged (fetch and compare, no upload). Each timed write starts
from an empty bucket. Skipped, with the reason, when moto's server or s3fs is missing."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .running import Runner, Scenario, Side
from .words import BASE_URL

NAME = "s3-write"
OURS, FLOOR = "ours", "floor"  # the buckets

FLOOR_S3 = r'''
import os, sys, fsspec
folder, bucket = sys.argv[1:3]
fs = fsspec.filesystem("s3")
for name in sorted(os.listdir(folder), key=lambda n: n == "sitemap.xml"):  # the index last
    fs.put_file(os.path.join(folder, name), f"{bucket}/{name}", ContentType="application/xml")
'''


def s3_rows(cmd: list[str], fpy: str, urls: Path, n: int, out: Path,
            r: Runner) -> list[Scenario]:
    od = out / NAME
    run = [*cmd, str(urls), "--base-url", BASE_URL, "-q", "-o"]
    # "none": the objects are not in the side's folder; ensure_s3 compares them with the source
    return [Scenario(NAME, f"{n:,}-URL list -> split sitemap + index in a bucket of a local "
                     "S3 server", n, Side("ours", [*run, f"s3://{OURS}/sitemap.xml"],
                                          od / "ours", "none"),
                     [Side("floor", [fpy, str(r.work / "floor_s3.py"), str(od / "source"),
                                     FLOOR], od / "floor", "none"),
                      Side("local", [*run, str(od / "local" / "sitemap.xml")], od / "local",
                           "xml"),
                      Side("unchanged", [*run, f"s3://{OURS}/sitemap.xml"], od / "again",
                           "none")])]


def ensure_s3(s: Scenario, cmd: list[str], fpy: str, r: Runner,
              log: Callable[[str], None]) -> None:
    """Start the server, make the buckets and the floor's files, and empty the buckets before
    each timed write; or mark the row skipped, saying why."""
    why = _missing(fpy)
    if why:
        s.note = f"skipped: {why}"
        for side in (s.ours, *s.baselines):
            side.status = "skipped"
        log(f"  {NAME}: {s.note}")
        return
    import logging
    import os

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # (a line a request, otherwise)

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    os.environ.update(AWS_ENDPOINT_URL=f"http://{host}:{port}", AWS_ACCESS_KEY_ID="bench",
                      AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1")
    import boto3

    client = boto3.client("s3")
    for bucket in (OURS, FLOOR):
        client.create_bucket(Bucket=bucket)
    (r.work / "floor_s3.py").write_text(FLOOR_S3)
    source = Path(s.baselines[0].argv[2])
    local = s.baselines[1].argv
    source.mkdir(parents=True, exist_ok=True)
    subprocess.run([*local[:local.index("-o")], "-o", str(source / "sitemap.xml")], check=True)
    checked: list[bool] = []

    def before_floor() -> None:  # (ours has just written: its objects are the source's bytes)
        if not checked and s.ours.runs:
            _same(client, source)
            checked.append(True)
        _empty(client, FLOOR)

    s.ours.prepare = lambda: _empty(client, OURS)
    s.baselines[0].prepare = before_floor


def _missing(fpy: str) -> str:
    try:
        import boto3  # noqa: F401
        import moto.server  # noqa: F401
    except ImportError:
        return f"moto's server (pip install 'moto[server]') is not installed for {sys.executable}"
    if subprocess.run([fpy, "-c", "import s3fs"], capture_output=True).returncode:
        return f"s3fs (pip install 'feed2sitemap[cloud]') is not installed for {fpy}"
    return ""


def _empty(client: Any, bucket: str) -> None:
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        keys = [{"Key": o["Key"]} for o in page.get("Contents", [])]
        if keys:
            client.delete_objects(Bucket=bucket, Delete={"Objects": keys})


def _same(client: Any, source: Path) -> None:
    names = sorted(p.name for p in source.iterdir())
    listed = client.list_objects_v2(Bucket=OURS).get("Contents", [])
    if sorted(o["Key"] for o in listed) != names or any(
            client.get_object(Bucket=OURS, Key=name)["Body"].read() != (source / name).read_bytes()
            for name in names):
        raise SystemExit(f"{NAME}: the bucket does not hold the local run's files")
