"""Text carrying terminal control sequences, through every face that shows what a model or a
script says: a model whose graph, node and output names and doc string hold it (`gewb graph`,
`print node`) and a script's `say` line (`gewb run`). Nothing may reach the output raw: a
control character other than newline and tab in what a face prints counts as raw."""
from __future__ import annotations

import io
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from hypothesis import strategies as st

from fuzzing.targets import Target
from fuzzing.verdict import OK, RAW, TYPED, Verdict

SEQUENCES = ("\x1b[2J", "\x1b]52;c;cHduZWQ=\x07", "\x1b]0;title\x07", "\x1b]2;t\x1b\\",
             "\x9b31m", "\x1bP+q\x1b\\", "\r", "\x08", "\x00", "\u202e", "\x7f")
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def cases() -> st.SearchStrategy:
    piece = st.one_of(st.sampled_from(SEQUENCES),
                      st.text(st.characters(max_codepoint=0x20ff), max_size=6))
    text = st.lists(piece, min_size=1, max_size=6).map("".join)
    return st.tuples(text, st.sampled_from(("graph", "node", "output", "doc", "say")))


def setup(workdir: str) -> Path:
    return Path(workdir)


def _model(path: Path, text: str, where: str) -> None:
    import onnx
    from onnx import TensorProto, helper
    out = f"y{text}" if where == "output" else "y"
    node = helper.make_node("Relu", ["x"], [out], name=f"n{text}" if where == "node" else "n",
                            doc_string=text if where == "doc" else "")
    graph = helper.make_graph([node], f"g{text}" if where == "graph" else "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info(out, TensorProto.FLOAT, [2])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def run(case: tuple, workdir: Path) -> Verdict:
    from workbench.cli import main
    text, where = case
    script = workdir / "s.gwb"
    if where == "say":
        script.write_text(f"say {text.replace(chr(10), ' ')}\n")
        argv = ["run", str(script)]
    else:
        _model(workdir / "m.onnx", text, where)
        script.write_text("target m.onnx\nstep stage\nprint node n" +
                          (text if where == "node" else "") + "\n")
        argv = ["graph", str(workdir / "m.onnx")]
    shown = io.StringIO()
    statuses = []
    for args in ([argv] if where == "say" else [argv, ["run", str(script)]]):
        with redirect_stdout(shown), redirect_stderr(shown):
            statuses.append(main(args))
    leaked = RAW_CONTROL.search(shown.getvalue())
    if leaked:
        return Verdict(RAW, f"{where}: {leaked.group()!r} reached the output raw")
    return Verdict(OK) if all(s == 0 for s in statuses) else Verdict(TYPED)


TARGET = Target("escape", cases, setup, run)
