"""Pygments lexers: the command language (REPL input, .gwb scripts) and GE's IR dump format
(`print node`, `dump`, the diff of a pass)."""
from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import (Comment, Keyword, Name, Number, Operator, Punctuation, String, Text,
                            Whitespace)

from workbench.commands.table import COMMANDS
from workbench.debugger.breakpoints import KINDS
from workbench.debugger.granularity import GRANULARITIES
from workbench.commands.inspecting import INFO


class GwbLexer(RegexLexer):
    """`break sqe type=label_set stream=1 if time_ns > 5000`"""

    name = "GE Workbench commands"
    aliases = ["gwb"]
    filenames = ["*.gwb"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"#.*$", Comment.Single),
            (r"(say)(\s.*)?$", bygroups(Keyword, String)),
            (words(COMMANDS.names(), suffix=r"\b"), Keyword, "args"),
            (r"\S+", Text, "args"),
        ],
        "args": [
            (r"\n", Whitespace, "#pop"),
            (r"[ \t]+", Whitespace),
            (r"\bif\b", Keyword, "condition"),
            (r"([A-Za-z_]+)(=)(\S*)", bygroups(Name.Attribute, Operator, String)),
            (words((*KINDS, *GRANULARITIES, *INFO, "node", "tensor", "trace", "anchors",
                    "attr", "event", "notify", "stream", "all"), suffix=r"\b"), Name.Builtin),
            (r"0[xX][0-9a-fA-F]+|\d+", Number),
            (r"\S+", Name.Variable),
        ],
        "condition": [
            (r"\n", Whitespace, "#pop:2"),
            (r"\s+", Whitespace),
            (r"\b(and|or|not|in)\b", Operator.Word),
            (r"[<>=!]=?|[-+*/%]", Operator),
            (r"'[^']*'|\"[^\"]*\"", String),
            (r"\d+", Number),
            (r"\w+", Name.Variable),
            (r"[(),\[\]]", Punctuation),
        ],
    }


class GeIrLexer(RegexLexer):
    """`%conv1 : Conv(%input:0, ^%init) -> f32[1,8,16,16] => [%bn1:0] {pads=[1,1,1,1]}`"""

    name = "GE IR dump"
    aliases = ["geir"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"^(---|\+\+\+).*$", Comment.Preproc),
            (r"^@@.*@@$", Comment.Special),
            (r"^[-+]", Operator),
            (r"(graph|subgraph)(\s+)(\S+)", bygroups(Keyword, Whitespace, Name.Namespace)),
            (r"\^?%[^\s,():;\]]+", Name.Variable),
            (r"(:)(\s*)((?:[a-z][\w.]*::)?[A-Z]\w*)(\()",  # domain::Op off the default domain
             bygroups(Punctuation, Whitespace, Name.Class, Punctuation)),
            (r"\b(bool|u?i(2|4|8|16|32|64)|f(16|32|64)|bf16|f8e\w+|f4e2m1|str|variant)\[[^\]]*\]",
             Keyword.Type),
            (r"->|=>", Operator),
            (r"\{", Punctuation, "attrs"),
            (r"[\[\](),;:]", Punctuation),
            (r"@\S+", Name.Namespace),
            (r"\d+", Number),
            (r"\S", Text),
        ],
        "attrs": [
            (r"\}", Punctuation, "#pop"),
            (r"(\w+)(=)", bygroups(Name.Attribute, Operator)),
            (r"'[^']*'", String),
            (r"<[^>]*>", String.Other),
            (r"-?\d+(\.\d+)?(e[-+]?\d+)?", Number),
            (r"[^}]", Text),
        ],
    }
