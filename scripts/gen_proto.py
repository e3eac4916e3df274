"""Regenerate ge_core/om/proto/*_pb2.py from the .proto files beside them.

    python scripts/gen_proto.py              # rewrite the checked-in modules
    python scripts/gen_proto.py --out DIR    # write them to DIR instead (the staleness test)

protoc comes from the grpcio-tools wheel (the `test` extra) when it is installed, so every
machine generates byte-identical code with the protoc version pip pinned; a `protoc` on PATH is
the fallback. The generated code checks at import that the protobuf runtime is at least as new
as that protoc.
"""
from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

PROTO_DIR = Path(__file__).resolve().parents[1] / "ge_core" / "om" / "proto"
PROTOS = ("ge_ir.proto", "task.proto")


def protoc_command() -> list[str]:
    if importlib.util.find_spec("grpc_tools") is None:
        protoc = shutil.which("protoc")
        if protoc is None:
            sys.exit("gen_proto: no protoc: `pip install grpcio-tools` (the test extra) "
                     "or put protoc on PATH")
        return [protoc]
    return [sys.executable, "-m", "grpc_tools.protoc"]


def generate(out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    cmd = protoc_command() + [f"-I{PROTO_DIR}", f"--python_out={out_dir}", *PROTOS]
    subprocess.run(cmd, check=True, cwd=PROTO_DIR)
    return [out_dir / p.replace(".proto", "_pb2.py") for p in PROTOS]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=PROTO_DIR)
    for path in generate(parser.parse_args().out):
        print(path)


if __name__ == "__main__":
    main()
