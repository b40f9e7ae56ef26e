"""Sitemaps written to object storage (issue 39): 1,000,000 URLs to a local S3 server (moto's,
on 127.0.0.1) against a floor that uploads the same bytes with the same client (s3fs), and the
same run written to a local folder. CPU seconds (user+sys) of each command, the server's own
CPU not counted (it runs in this process).

    python benchmarks/bench_cloud.py --data-dir DIR --out-dir DIR
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from moto.server import ThreadedMotoServer

BASE_URL = "https://example.com/"
UPLOAD = r'''
import os, sys, fsspec
folder, bucket = sys.argv[1:3]
fs = fsspec.filesystem("s3")
names = sorted(os.listdir(folder), key=lambda n: n == "sitemap.xml")  # the index last
for name in names:
    fs.put_file(os.path.join(folder, name), f"{bucket}/{name}", ContentType="application/xml")
'''


def timed(label: str, args: list[str]) -> None:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args, check=True, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    print(f"{label:<44} {cpu:7.2f} s CPU {wall:7.2f} s wall")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--out-dir", type=Path, required=True)
    opts = parser.parse_args()
    urls = opts.data_dir / "urls-ascii-1000000.txt"
    local = opts.out_dir / "cloud-local"
    shutil.rmtree(local, ignore_errors=True)
    local.mkdir(parents=True)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    os.environ.update(AWS_ENDPOINT_URL=f"http://{host}:{port}", AWS_ACCESS_KEY_ID="bench",
                      AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1")
    import fsspec

    fs = fsspec.filesystem("s3")
    for bucket in ("ours", "floor"):
        fs.mkdir(bucket)
    exe = str(Path(sys.executable).parent / "feed2sitemap")
    run = [exe, str(urls), "--base-url", BASE_URL, "-q", "-o"]
    timed("local folder (1M URLs, index + 20 parts)", [*run, str(local / "sitemap.xml")])
    timed("ours: -o s3://ours/sitemap.xml", [*run, "s3://ours/sitemap.xml"])
    timed("floor: s3fs put_file of the same 21 files", [sys.executable, "-c", UPLOAD,
                                                         str(local), "floor"])
    timed("ours again, nothing changed (fetch + compare)", [*run, "s3://ours/sitemap.xml"])
    assert fs.cat_file("ours/sitemap-7.xml") == (local / "sitemap-7.xml").read_bytes()
    server.stop()


if __name__ == "__main__":
    main()
