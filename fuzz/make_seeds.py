"""Seed inputs for fuzz_inputs.py: samples/ and the small conformance files, each once per
format byte (see fuzz_inputs.one_input) and once gzip-compressed."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [ROOT / "samples", ROOT.parent / "shared" / "conformance"]


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for base in SOURCES:
        for path in sorted(base.rglob("*")) if base.is_dir() else ():
            if not path.is_file() or path.stat().st_size > 20_000:
                continue
            data = path.read_bytes()
            for head, body in ((bytes([4]), data), (bytes([5]), data), (bytes([4]),
                                                                        gzip.compress(data))):
                (out / f"seed-{n:05d}").write_bytes(head + body)
                n += 1
    print(f"{n} seeds in {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
