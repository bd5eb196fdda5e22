#!/usr/bin/env python3
"""Put a recording bundle from the GPU machine into tests/goldens/.

    python3 tools/device/unpack.py DIR      # DIR holds goldens.tar.gz.part-* from record_all.sh

Only tests/goldens/conformance/* and tests/goldens/kernels/* are written (the files the recorder
made, unchanged); the recording logs go to DIR/logs for reading.
"""
from __future__ import annotations

import glob
import io
import os
import sys
import tarfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(__doc__)
        return 2
    src = argv[0]
    parts = sorted(glob.glob(os.path.join(src, "goldens.tar.gz.part-*")))
    if not parts:
        print(f"no goldens.tar.gz.part-* in {src}", file=sys.stderr)
        return 1
    data = b"".join(open(p, "rb").read() for p in parts)
    dest = os.path.join(ROOT, "tests", "goldens")
    n = 0
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for m in tar.getmembers():
            if not m.isfile():
                continue
            parts_ = m.name.lstrip("./").split("/")
            if parts_[0] == "logs":
                out = os.path.join(src, "logs", *parts_[1:]) if os.access(src, os.W_OK) else None
                if out is None:
                    continue
            elif parts_[0] == "goldens" and len(parts_) == 3 and parts_[1] in ("conformance", "kernels"):
                out = os.path.join(dest, parts_[1], parts_[2])
            else:
                print(f"skipping {m.name}", file=sys.stderr)
                continue
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "wb") as f:
                f.write(tar.extractfile(m).read())
            if parts_[0] == "goldens":
                n += 1
                print(os.path.relpath(out, ROOT))
    print(f"{n} golden files written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
