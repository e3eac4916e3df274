"""Debugger command lines as users mistype them: every command and alias, arguments drawn from
what the commands take (stepping units, ticks, breakpoint kinds and filters, node and pass names,
dtypes and shapes as the IR prints them, file names) and from what they do not (huge, negative
and malformed numbers, conditions that are expensive or raise, stray text)."""
from __future__ import annotations

from hypothesis import strategies as st

NAMES = ("step", "s", "next", "n", "continue", "c", "finish", "run-to", "reverse-step", "rs",
         "reverse-continue", "goto", "restart", "break", "b", "handle", "watch", "enable",
         "disable", "delete", "info", "i", "print", "p", "diff", "passes", "where", "timeline",
         "dump", "export", "set", "save-script", "say", "help", "pause", "list", "bt", "quit",
         "bogus")
WORDS = (
    # stepping units, breakpoint and watch kinds, info subjects
    "stage", "pass", "node", "task", "sqe", "event", "notify", "label", "wait", "fault",
    "distribute", "stream", "anchors", "attr", "streams", "events", "notifies", "labels",
    "models", "memory", "breakpoints", "watches", "settings", "all", "tensor", "trace",
    # numbers
    "0", "1", "-1", "3", "100000", "2147483648", "18446744073709551616", "0x10",
    "0x100000000", "0x100000800", "1e9", "-0", "9" * 40,
    # filters and conditions
    "type=event_record", "type=kernel_aicore", "type=bogus", "stream=1", "stream=-1",
    "stream=x", "name=conv1", "if", "tick > 5", "1/0", "x", "'a'*10**9", "stop", "nostop",
    "10**10**10", "[1]*10**8", "((((((((((1))))))))))" * 40, "race", "deadlock",
    # names from the bundled sample and GE's passes
    "conv1", "bn1", "relu1", "fc", "softmax", "no_such_node", "ConstantFoldingPass",
    "PrunePass", "AssignLogicalStreams", "OptimizeOriginalGraph", "stream_id",
    "output_offset",
    # dtypes and shapes, as the IR prints them and as numpy names them
    "f32", "float32", "int64", "i64", "bogus_dtype", "[1,10]", "[1, 10]", "[]", "[-1]",
    "[99999999,99999999]", "(1,10)",
    # settings and files (relative: they land in the case's scratch directory)
    "race-check", "on", "off", "seed", "stream-max-parallel-num", "exclude-engines",
    "out.gwb", "dumpdir", "trace.json", "sub/dir/x.gwb", "", "\t", "\x00", "é", "\u202e",
    # places nothing can be written: /proc, under a file a case wrote
    "/proc/gewb-fuzz.gwb", "out.gwb/x.gwb")
# Stray text: no '/' or '.', so nothing a case writes can name a place outside its directory.
STRAY = st.text(st.characters(blacklist_characters="/.\\", blacklist_categories=("Cs",)),
                max_size=12)


def command_line() -> st.SearchStrategy:
    args = st.lists(st.one_of(st.sampled_from(WORDS), STRAY), max_size=4)
    return st.builds(lambda name, words: " ".join([name, *words]),
                     st.one_of(st.sampled_from(NAMES), STRAY), args)
