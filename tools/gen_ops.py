#!/usr/bin/env python3
"""Writes what is generated from the op table, src/op_table.def, the dtype
table, src/core/dtype_table.def, and the header's bc_status and bc_option enums.

    python3 tools/gen_ops.py            rewrite every generated file
    python3 tools/gen_ops.py --check    write nothing; exit 1 naming the files
                                        that would change (the ctest
                                        `ops.generated`), 0 when all are current
    python3 tools/gen_ops.py --check --diff   the same, with unified diffs

Generated from src/op_table.def: the bc_op and bc_unary_op enums and their
counts in include/bcast/bcast.h, the Rust constants of both (bcast-sys), the
BinaryOp and UnaryOp variants, ALL, tensor methods and Context methods
(bcast; UnaryOp also its parameter names), the Go constants, names and named
functions of both (package-level and Context methods; binary ones also with a
number operand), docs/ops.md and tests/differential/ops_table.py. Of the
ternary ops (BCAST_TERNARY_OP): all of Go's wrappers, bindings/go/
ternary_named.go (Where, Addcmul, Addcdiv, Lerp, Clamp with their Out and
InPlace forms, each a Context method and a package-level function; the
parameters are those of the header's bc_ctx_<name>, bc_ctx_<name>_out and
bc_ctx_<name>_, a `double` becoming a float64), and in Rust the ops whose C
functions take three tensors and a `value` (addcmul, addcdiv: the
ternary_value_methods! lines in bcast/src/ops.rs). Of the reductions
(BCAST_REDUCE_OP): the header's bc_reduce_op enum and count, bcast-sys's
constants, bcast's ReduceOp variants and ALL and its reduce_methods! list
(`x.sum(dims, keepdim)`, `sum_out`, `sum_all`, and Context methods), Go's
ReduceOp constants and names in reduce.go and its named functions and
Context methods in reduce_named.go (Sum, SumOut), a docs/ops.md section and
REDUCE_OPS in tests/differential/ops_table.py. The generator checks that
the C functions those wrappers call (REDUCE_FUNCTIONS, plain and bc_ctx_)
are in the header with the parameters they pass.

Generated from src/core/dtype_table.def: bcast-sys's BC_<DTYPE> constants,
the bcast DType variants, DType::ALL, torch_name(), the category (from the
kind column) and the Element impls, and Go's DType constants and dtypeInfo
table (names, PyTorch's Python and ScalarType names, sizes). A dtype's
language-side spelling comes from DTYPE_WORDS, its size and Rust type from
CTYPES (keyed by the table's CType). The header's bc_dtype enum stays
hand-written (its docs are C's); the generator checks it lists the table's
dtypes in the table's order.

Generated from include/bcast/bcast.h, which stays their source (parsed, with
each enumerator's Doxygen doc): bcast-sys's bc_status and bc_option
constants, bcast's ErrorCode variants and its from_raw/raw mappings, and Go's
Code constants and codeNames. Options have no generated wrapper beyond the
constants: each setting's Rust and Go accessor has its own type and rules.

Hand-written, because a template would be worse than the code:
  - Rust where_cond/_out/_ (`where` is a keyword; the condition comes first
    in the allocating form and second in place), lerp (a number weight goes
    to bc_lerp_scalar*), clamp, clamp_min, clamp_max (number and missing
    bounds go to bc_clamp_scalar*), and their Context methods; the
    ternary_value_methods! macro and its ternary_value* helpers themselves.
  - Go's notes on operands the table does not state (GO_TERNARY_NOTES:
    where's Bool condition, addcdiv's and lerp's dtypes, clamp's nil
    bounds), ClampScalar and LerpScalar (scalars.go).
  - The reductions' generic wrappers (Rust reduce/reduce_with/_out,
    ReduceParams, max_dim/min_dim; Go Reduce, ReduceEx, their Out forms,
    ReduceOption, MaxDim/MinDim) and bcast-sys's declarations of the
    bc_reduce* and bc_max_dim/bc_min_dim functions and bc_reduce_params
    (checked against the header by bcast-sys's tests/header.rs).
  - Every other binding function, and the C header outside the bc_op,
    bc_unary_op and bc_reduce_op blocks.

Files that are partly generated carry BEGIN/END GENERATED marker comments
(naming the source: op_table.def, dtype_table.def or bcast.h); only the lines
between them are rewritten, so a marker pair is placed by hand once and then
kept. Whole generated files start with "Code generated ... DO NOT EDIT."

As a module (standard library only): `gen_ops.load()` returns the parsed
table, a `Table` of `BinaryOp`, `TernaryOp`, `UnaryOp` and `ReduceOp` records;
`parse_dtypes()` and `load_header()` the other two sources.
"""
from __future__ import annotations

import argparse
import dataclasses
import difflib
import re
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
DEF_PATH = "src/op_table.def"

# What the table's enumerators mean, in the words docs/ops.md uses.
PROMOTIONS = {
    "kPromote": "common dtype",
    "kToFloat": "common dtype; float32 for integers and bool",
    "kCompare": "bool (compared in the common dtype)",
    "kLogical": "bool (operands read as bool: nonzero is true)",
}
DTYPE_SETS = {
    "kAnyDtype": "all",
    "kNoBool": "all but bool",
    "kFloating": "floating (float16, bfloat16, float32, float64)",
    "kIntegralOrBool": "integers and bool",
    "kIntegral": "integers",
}
# A reduction's result dtype without dtype= or out= (the result column).
REDUCE_RESULTS = {
    "kReduceSum": "int64 for integers and bool; else the input's",
    "kReduceKeep": "the input's",
    "kReduceToFloat": "float32 for integers and bool; else the input's",
    "kReduceBool": "bool; uint8 for uint8",
    "kReduceInt64": "int64",
}
NO_ALPHA = "NoAlpha"


class TableError(Exception):
    """The op table cannot be read: the message names the file and line."""


class EnumNames:
    """The names an op with a C enum value (binary and unary ops) goes by."""

    id: str

    @property
    def c_enum(self) -> str:
        return "BC_" + self.id

    @property
    def snake(self) -> str:
        """Rust method name: shift_left."""
        return self.id.lower()

    @property
    def camel(self) -> str:
        """Rust variant and Go function name: ShiftLeft."""
        return "".join(w.capitalize() for w in self.id.split("_"))


@dataclasses.dataclass(frozen=True)
class BinaryOp(EnumNames):
    """One BCAST_BINARY_OP entry; fields in the macro's argument order."""

    id: str
    value: int
    name: str
    promotion: str
    dtypes: str
    kernel: str
    functor: str
    alpha_functor: str
    doc: str
    line: int


    @property
    def has_alpha(self) -> bool:
        return self.alpha_functor != NO_ALPHA


@dataclasses.dataclass(frozen=True)
class TernaryOp:
    """One BCAST_TERNARY_OP entry; fields in the macro's argument order."""

    id: str
    name: str
    dtypes: str
    kernel: str
    functor: str
    operands: Tuple[str, ...]
    doc: str
    line: int

    @property
    def c_function(self) -> str:
        return "bc_" + self.name


@dataclasses.dataclass(frozen=True)
class UnaryOp(EnumNames):
    """One BCAST_UNARY_OP entry; fields in the macro's argument order."""

    id: str
    value: int
    name: str
    promotion: str
    dtypes: str
    kernel: str
    functor: str
    params: str
    doc: str
    line: int


    @property
    def param_names(self) -> Tuple[str, ...]:
        """PyTorch's parameter names, in its order: ('beta', 'threshold')."""
        return tuple(p.split("=")[0].strip() for p in self.params.split(",")) if self.params else ()

    @property
    def param_defaults(self) -> Tuple[Optional[float], ...]:
        """Each parameter's default (None where PyTorch's is None)."""
        out: List[Optional[float]] = []
        for p in self.params.split(",") if self.params else ():
            v = p.split("=")[1].strip()
            out.append(None if v == "None" else float(v))
        return tuple(out)


@dataclasses.dataclass(frozen=True)
class ReduceOp(EnumNames):
    """One BCAST_REDUCE_OP entry; fields in the macro's argument order."""

    id: str
    value: int
    name: str
    dtypes: str
    result: str
    doc: str
    line: int


@dataclasses.dataclass(frozen=True)
class Table:
    binary: Tuple[BinaryOp, ...]
    ternary: Tuple[TernaryOp, ...]
    unary: Tuple[UnaryOp, ...] = ()
    reduce: Tuple[ReduceOp, ...] = ()


# ---------------------------------------------------------------- parsing

_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<nl>\n)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>[0-9]+)
  | (?P<punct>[(),])
    """,
    re.VERBOSE | re.DOTALL,
)

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
            "\\": "\\", '"': '"', "'": "'", "?": "?"}


def _unquote(literal: str) -> str:
    """The value of a C string literal (quotes included in `literal`)."""
    body = literal[1:-1]
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e == "x":
            m = re.match(r"[0-9A-Fa-f]+", body[i + 2:])
            out.append(chr(int(m.group(0), 16)))
            i += 2 + len(m.group(0))
        elif e in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1:])
            out.append(chr(int(m.group(0), 8)))
            i += 1 + len(m.group(0))
        else:
            raise ValueError(f"unknown escape \\{e}")
    return "".join(out)


def _tokens(text: str, where: str) -> List[Tuple[str, str, int]]:
    """(kind, text, line) of everything but blanks, comments and preprocessor lines."""
    out: List[Tuple[str, str, int]] = []
    pos, line, at_line_start = 0, 1, True
    while pos < len(text):
        if at_line_start and text[pos] == "#":
            # A directive, with its backslash-continued lines.
            end = pos
            while True:
                nl = text.find("\n", end)
                if nl == -1:
                    end = len(text)
                    break
                if text[nl - 1] != "\\":
                    end = nl
                    break
                line += 1
                end = nl + 1
            pos = end
            continue
        m = _TOKEN.match(text, pos)
        if not m:
            raise TableError(f"{where}:{line}: cannot read {text[pos:pos + 20]!r}")
        kind, value = m.lastgroup, m.group(0)
        if kind == "nl":
            at_line_start = True
        elif kind != "ws":
            at_line_start = False
        if kind in ("string", "ident", "number", "punct"):
            out.append((kind, value, line))
        line += value.count("\n")
        pos = m.end()
    return out


# An argument: ("ident", str), ("number", int), ("string", str) or
# ("call", (name, [arguments])).
Arg = Tuple[str, object, int]


def _parse_args(toks: List[Tuple[str, str, int]], i: int, where: str) -> Tuple[List[Arg], int]:
    """Arguments of the call whose '(' is toks[i]; returns them and the index after ')'."""
    args: List[Arg] = []
    i += 1
    while True:
        if i >= len(toks):
            raise TableError(f"{where}: unterminated macro call")
        kind, text, line = toks[i]
        if kind == "string":
            value = ""
            while i < len(toks) and toks[i][0] == "string":  # "a" "b" is "ab"
                value += _unquote(toks[i][1])
                i += 1
            args.append(("string", value, line))
        elif kind == "number":
            args.append(("number", int(text), line))
            i += 1
        elif kind == "ident":
            if i + 1 < len(toks) and toks[i + 1][1] == "(":
                inner, i = _parse_args(toks, i + 1, where)
                args.append(("call", (text, inner), line))
            else:
                args.append(("ident", text, line))
                i += 1
        else:
            raise TableError(f"{where}:{line}: expected an argument, found {text!r}")
        kind, text, line = toks[i] if i < len(toks) else ("", "", line)
        if text == ")":
            return args, i + 1
        if text != ",":
            raise TableError(f"{where}:{line}: expected ',' or ')', found {text!r}")
        i += 1


def _want(arg: Arg, kind: str, what: str, where: str, pattern: Optional[str] = None):
    if arg[0] != kind:
        raise TableError(f"{where}:{arg[2]}: {what} must be a {kind}, not {arg[1]!r}")
    if pattern and not re.fullmatch(pattern, arg[1]):
        raise TableError(f"{where}:{arg[2]}: {what} {arg[1]!r} does not match {pattern}")
    return arg[1]


def _want_in(arg: Arg, allowed: Dict[str, str], what: str, where: str) -> str:
    value = _want(arg, "ident", what, where)
    if value not in allowed:
        raise TableError(f"{where}:{arg[2]}: unknown {what} {value!r} "
                         f"(one of {', '.join(allowed)})")
    return value


def _want_doc(arg: Arg, where: str) -> str:
    doc = _want(arg, "string", "doc", where)
    if not doc.strip() or "\n" in doc or "*/" in doc:
        raise TableError(f"{where}:{arg[2]}: doc must be one line, without '*/'")
    return doc


def parse(text: str, where: str = DEF_PATH) -> Table:
    """The table described by the text of an op_table.def."""
    toks = _tokens(text, where)
    binary: List[BinaryOp] = []
    ternary: List[TernaryOp] = []
    unary: List[UnaryOp] = []
    reduce: List[ReduceOp] = []
    i = 0
    while i < len(toks):
        kind, macro, line = toks[i]
        if macro not in ("BCAST_BINARY_OP", "BCAST_TERNARY_OP", "BCAST_UNARY_OP",
                         "BCAST_REDUCE_OP") or i + 1 == len(toks) or toks[i + 1][1] != "(":
            raise TableError(f"{where}:{line}: expected an op entry, found {macro!r}")
        args, i = _parse_args(toks, i + 1, where)
        if macro == "BCAST_REDUCE_OP":
            if len(args) != 6:
                raise TableError(f"{where}:{line}: BCAST_REDUCE_OP takes 6 arguments, got {len(args)}")
            reduce.append(ReduceOp(
                id=_want(args[0], "ident", "Id", where, r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)*"),
                value=_want(args[1], "number", "value", where),
                name=_want(args[2], "ident", "name", where, r"[a-z][a-z0-9_]*"),
                dtypes=_want_in(args[3], DTYPE_SETS, "dtypes", where),
                result=_want_in(args[4], REDUCE_RESULTS, "result", where),
                doc=_want_doc(args[5], where),
                line=line))
        elif macro == "BCAST_UNARY_OP":
            if len(args) != 9:
                raise TableError(f"{where}:{line}: BCAST_UNARY_OP takes 9 arguments, got {len(args)}")
            params = _want(args[7], "string", "params", where,
                           r"|[a-z_]+=(None|-?[0-9.]+)(, [a-z_]+=(None|-?[0-9.]+))*")
            if len(params.split(",")) > 3:
                raise TableError(f"{where}:{line}: at most 3 params (kMaxScalars)")
            unary.append(UnaryOp(
                id=_want(args[0], "ident", "Id", where, r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)*"),
                value=_want(args[1], "number", "value", where),
                name=_want(args[2], "ident", "name", where, r"[a-z][a-z0-9_]*"),
                promotion=_want_in(args[3], PROMOTIONS, "promotion", where),
                dtypes=_want_in(args[4], DTYPE_SETS, "dtypes", where),
                kernel=_want(args[5], "string", "kernel", where, r"[A-Za-z_][A-Za-z0-9_]*"),
                functor=_want(args[6], "ident", "Functor", where),
                params=params,
                doc=_want_doc(args[8], where),
                line=line))
        elif macro == "BCAST_BINARY_OP":
            if len(args) != 9:
                raise TableError(f"{where}:{line}: BCAST_BINARY_OP takes 9 arguments, got {len(args)}")
            binary.append(BinaryOp(
                id=_want(args[0], "ident", "Id", where, r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)*"),
                value=_want(args[1], "number", "value", where),
                name=_want(args[2], "ident", "name", where, r"[a-z][a-z0-9_]*"),
                promotion=_want_in(args[3], PROMOTIONS, "promotion", where),
                dtypes=_want_in(args[4], DTYPE_SETS, "dtypes", where),
                kernel=_want(args[5], "string", "kernel", where, r"[A-Za-z_][A-Za-z0-9_]*"),
                functor=_want(args[6], "ident", "Functor", where),
                alpha_functor=_want(args[7], "ident", "AlphaFunctor", where),
                doc=_want_doc(args[8], where),
                line=line))
        else:
            if len(args) != 7:
                raise TableError(f"{where}:{line}: BCAST_TERNARY_OP takes 7 arguments, got {len(args)}")
            ops = args[5]
            if ops[0] != "call" or ops[1][0] != "BCAST_OPERANDS" or len(ops[1][1]) != 3 \
                    or any(a[0] != "string" for a in ops[1][1]):
                raise TableError(f"{where}:{ops[2]}: operands must be BCAST_OPERANDS(\"a\", \"b\", \"c\")")
            ternary.append(TernaryOp(
                id=_want(args[0], "ident", "Id", where, r"[A-Z][A-Za-z0-9]*"),
                name=_want(args[1], "ident", "name", where, r"[a-z][a-z0-9_]*"),
                dtypes=_want_in(args[2], DTYPE_SETS, "dtypes", where),
                kernel=_want(args[3], "string", "kernel", where, r"[A-Za-z_][A-Za-z0-9_]*"),
                functor=_want(args[4], "ident", "Functor", where),
                operands=tuple(a[1] for a in ops[1][1]),
                doc=_want_doc(args[6], where),
                line=line))
    _validate(binary, ternary, where)
    for k, op in enumerate(unary):
        if op.value != k:
            raise TableError(f"{where}:{op.line}: BC_{op.id} = {op.value}, but unary entries must "
                             f"be in bc_unary_op order with values 0, 1, 2, ... (expected {k})")
    for k, op in enumerate(reduce):
        if op.value != k:
            raise TableError(f"{where}:{op.line}: BC_{op.id} = {op.value}, but reduce entries must "
                             f"be in bc_reduce_op order with values 0, 1, 2, ... (expected {k})")
    # The C enumerators of bc_op, bc_unary_op and bc_reduce_op share one namespace.
    seen = {o.id: o.line for o in binary}
    for op in list(unary) + list(reduce):
        if op.id in seen:
            raise TableError(f"{where}:{op.line}: Id {op.id!r} already used on line {seen[op.id]}")
        seen[op.id] = op.line
    names: Dict[str, int] = {}
    for op in reduce:
        if op.name in names:
            raise TableError(f"{where}:{op.line}: name {op.name!r} already used on line "
                             f"{names[op.name]}")
        names[op.name] = op.line
    return Table(tuple(binary), tuple(ternary), tuple(unary), tuple(reduce))


def _validate(binary: Sequence[BinaryOp], ternary: Sequence[TernaryOp], where: str) -> None:
    if not binary:
        raise TableError(f"{where}: no BCAST_BINARY_OP entries")
    for k, op in enumerate(binary):
        if op.value != k:
            raise TableError(f"{where}:{op.line}: BC_{op.id} = {op.value}, but entries must be in "
                             f"bc_op order with values 0, 1, 2, ... (expected {k})")
    seen: Dict[str, int] = {}
    for what, key in (("Id", lambda o: o.id.upper()), ("name", lambda o: o.name)):
        seen.clear()
        for op in list(binary) + list(ternary):
            if key(op) in seen:
                raise TableError(f"{where}:{op.line}: {what} {key(op)!r} already used on line "
                                 f"{seen[key(op)]}")
            seen[key(op)] = op.line


def load(path: Optional[Path] = None) -> Table:
    """The parsed table of src/op_table.def (or of `path`)."""
    path = Path(path) if path else ROOT / DEF_PATH
    return parse(path.read_text(encoding="utf-8"), str(path))


# ---------------------------------------------------------------- helpers

GENERATED = "by tools/gen_ops.py from src/op_table.def"
C_BEGIN, C_END = f"/* BEGIN GENERATED {GENERATED}: do not edit */", "/* END GENERATED */"
SLASH_BEGIN, SLASH_END = f"// BEGIN GENERATED {GENERATED}: do not edit", "// END GENERATED"


def splice(old: str, begin: str, end: str, bodies: Sequence[str], where: str) -> str:
    """`old` with the lines between each begin/end marker pair replaced by
    the next of `bodies` (each a block of whole lines)."""
    lines = old.splitlines(keepends=True)
    out: List[str] = []
    pairs = 0
    i = 0
    other = begin.split(" BEGIN GENERATED ")[0] + " BEGIN GENERATED "
    while i < len(lines):
        out.append(lines[i])
        if lines[i].strip().startswith(other) and lines[i].strip() != begin:
            # Another source's block (the same END marker): copied as it is.
            j = i + 1
            while j < len(lines) and lines[j].strip() != end:
                j += 1
            out.extend(lines[i + 1:j + 1])
            i = j + 1
            continue
        if lines[i].strip() == begin:
            j = i + 1
            while j < len(lines) and lines[j].strip() != end:
                if lines[j].strip() == begin:
                    raise TableError(f"{where}:{j + 1}: BEGIN GENERATED inside another")
                j += 1
            if j == len(lines):
                raise TableError(f"{where}:{i + 1}: BEGIN GENERATED without END GENERATED")
            if pairs < len(bodies):
                out.append(bodies[pairs])
            pairs += 1
            out.append(lines[j])
            i = j + 1
            continue
        if lines[i].strip() == end:
            raise TableError(f"{where}:{i + 1}: END GENERATED without BEGIN GENERATED")
        i += 1
    if pairs != len(bodies):
        raise TableError(f"{where}: {pairs} GENERATED marker pairs, expected {len(bodies)}")
    return "".join(out)


def wrap(words: Sequence[str], first: str, rest: str, width: int, sep: str = " ",
         last: str = "") -> List[str]:
    """Lines of `words` joined by `sep`, the first line starting with `first`,
    the others with `rest`, each at most `width` columns where possible;
    `last` ends the last line."""
    lines: List[str] = []
    cur = first
    fresh = True
    for k, w in enumerate(words):
        piece = w + (last if k == len(words) - 1 else "")
        candidate = cur + ("" if fresh else sep) + piece
        if not fresh and len(candidate.rstrip()) > width:
            lines.append(cur.rstrip())
            cur, fresh = rest + piece, False
        else:
            cur, fresh = candidate, False
    lines.append(cur.rstrip())
    return lines


def markdown_escape(text: str) -> str:
    """Text that Markdown (rustdoc, GitHub, Doxygen) shows as written: a `*`
    run that touches a word could open or close emphasis (`a*a + b*b`); one
    with blanks on both sides (`a * b`, `a ** b`) cannot and stays as is."""
    def escape(m: "re.Match[str]") -> str:
        run = m.group(0)
        if run == "\\":
            return "\\\\"
        before = text[m.start() - 1] if m.start() > 0 else " "
        after = text[m.end()] if m.end() < len(text) else " "
        return run if before.isspace() and after.isspace() else "\\*" * len(run)
    return re.sub(r"\\|\*+", escape, text)


# ---------------------------------------------------------------- C header

def c_header_block(t: Table) -> str:
    entries = [f"{op.c_enum} = {op.value}" + ("," if k < len(t.binary) - 1 else " ")
               for k, op in enumerate(t.binary)]
    col = 2 + max(len(e) for e in entries) + 1
    lines = ["/** Binary ops. Values are pinned forever. */", "typedef enum bc_op {"]
    for entry, op in zip(entries, t.binary):
        head = f"  {entry}".ljust(col) + "/**< "
        lines += wrap(op.doc.split(), head, " " * len(head), 80, last=" */")
    lines += ["} bc_op;", "", "/** Number of ::bc_op values. */",
              f"#define BC_OP_COUNT {len(t.binary)}"]
    return "\n".join(lines) + "\n"


def c_unary_block(t: Table) -> str:
    entries = [f"{op.c_enum} = {op.value}" + ("," if k < len(t.unary) - 1 else " ")
               for k, op in enumerate(t.unary)]
    col = 2 + max(len(e) for e in entries) + 1
    lines = ["/** Unary ops, PyTorch's names upper-cased. Values are pinned forever. */",
             "typedef enum bc_unary_op {"]
    for entry, op in zip(entries, t.unary):
        doc = op.doc + (f" Params: {op.params}." if op.params else "")
        head = f"  {entry}".ljust(col) + "/**< "
        lines += wrap(doc.split(), head, " " * len(head), 80, last=" */")
    lines += ["} bc_unary_op;", "", "/** Number of ::bc_unary_op values. */",
              f"#define BC_UNARY_OP_COUNT {len(t.unary)}"]
    return "\n".join(lines) + "\n"


def c_reduce_block(t: Table) -> str:
    entries = [f"{op.c_enum} = {op.value}" + ("," if k < len(t.reduce) - 1 else " ")
               for k, op in enumerate(t.reduce)]
    col = 2 + max(len(e) for e in entries) + 1
    lines = ["/** Reductions, PyTorch's names upper-cased. Values are pinned forever. */",
             "typedef enum bc_reduce_op {"]
    for entry, op in zip(entries, t.reduce):
        head = f"  {entry}".ljust(col) + "/**< "
        lines += wrap(op.doc.split(), head, " " * len(head), 80, last=" */")
    lines += ["} bc_reduce_op;", "", "/** Number of ::bc_reduce_op values. */",
              f"#define BC_REDUCE_OP_COUNT {len(t.reduce)}"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- Rust

def rust_sys_block(t: Table) -> str:
    lines = ["/// `enum bc_op`: binary ops.", "pub type bc_op = bc_enum_repr;"]
    lines += [f"pub const {op.c_enum}: bc_op = {op.value};" for op in t.binary]
    lines += ["/// `BC_OP_COUNT`: number of `bc_op` values.",
              f"pub const BC_OP_COUNT: usize = {len(t.binary)};"]
    if t.unary:
        lines += ["/// `enum bc_unary_op`: unary ops.", "pub type bc_unary_op = bc_enum_repr;"]
        lines += [f"pub const {op.c_enum}: bc_unary_op = {op.value};" for op in t.unary]
        lines += ["/// `BC_UNARY_OP_COUNT`: number of `bc_unary_op` values.",
                  f"pub const BC_UNARY_OP_COUNT: usize = {len(t.unary)};"]
    if t.reduce:
        lines += ["/// `enum bc_reduce_op`: reductions.", "pub type bc_reduce_op = bc_enum_repr;"]
        lines += [f"pub const {op.c_enum}: bc_reduce_op = {op.value};" for op in t.reduce]
        lines += ["/// `BC_REDUCE_OP_COUNT`: number of `bc_reduce_op` values.",
                  f"pub const BC_REDUCE_OP_COUNT: usize = {len(t.reduce)};"]
    return "\n".join(lines) + "\n"


def rust_doc(doc: str) -> str:
    return markdown_escape(doc).replace("BC_BOOL", "`Bool`")


def rust_variants(t: Table) -> str:
    lines = []
    for op in t.binary:
        lines += [f"    /// {rust_doc(op.doc)}", f"    {op.camel} = sys::{op.c_enum} as u32,"]
    return "\n".join(lines) + "\n"


def rust_all(t: Table) -> str:
    return _rust_all([op.camel for op in t.binary], "BinaryOp", "bc_op", "BC_OP_COUNT")


def _rust_all(names: Sequence[str], enum: str, c_enum: str, count: str) -> str:
    lines = [f"    /// Every op, in `{c_enum}` order.",
             f"    pub const ALL: [{enum}; sys::{count}] = {{",
             f"        use {enum}::*;",
             "        ["]
    # rustfmt's layout: packed rows while every name is short (its
    # short_array_element_width_threshold, 10), else one per line.
    if max(len(n) for n in names) <= 10:
        # Its rows stay under max_width (100) by one column.
        lines += wrap([n + "," for n in names], " " * 12, " " * 12, 99)
    else:
        lines += [" " * 12 + n + "," for n in names]
    lines += ["        ]", "    };"]
    return "\n".join(lines) + "\n"


def rust_methods(t: Table) -> str:
    return "".join(f"    {op.camel}: {op.snake}, {op.snake}_out, {op.snake}_;\n" for op in t.binary)


def rust_unary_variants(t: Table) -> str:
    lines = []
    for op in t.unary:
        doc = rust_doc(op.doc).replace("BC_GELU_TANH", "`BC_GELU_TANH`")
        if op.params:
            doc += f" Parameters: `{op.params}`."
        lines += [f"    /// {doc}", f"    {op.camel} = sys::{op.c_enum} as u32,"]
    return "\n".join(lines) + "\n"


def rust_unary_all(t: Table) -> str:
    return _rust_all([op.camel for op in t.unary], "UnaryOp", "bc_unary_op", "BC_UNARY_OP_COUNT")


def rust_unary_param_names(t: Table) -> str:
    lines = []
    for op in t.unary:
        if op.param_names:
            names = ", ".join(f'"{n}"' for n in op.param_names)
            lines.append(f"            UnaryOp::{op.camel} => &[{names}],")
    return "\n".join(lines) + "\n"


def rust_unary_methods(t: Table) -> str:
    return "".join(f"    {op.camel}: {op.snake}, {op.snake}_out, {op.snake}_;\n" for op in t.unary)


def rust_reduce_variants(t: Table) -> str:
    lines = []
    for op in t.reduce:
        lines += [f"    /// {rust_doc(op.doc)}", f"    {op.camel} = sys::{op.c_enum} as u32,"]
    return "\n".join(lines) + "\n"


def rust_reduce_all(t: Table) -> str:
    return _rust_all([op.camel for op in t.reduce], "ReduceOp", "bc_reduce_op",
                     "BC_REDUCE_OP_COUNT")


def rust_reduce_methods(t: Table) -> str:
    return "".join(f"    {op.camel}: {op.snake}, {op.snake}_out, {op.snake}_all;\n"
                   for op in t.reduce)


# ---------------------------------------------------------------- Go

def go_doc(doc: str) -> str:
    return doc.replace("BC_BOOL", "Bool")


def go_ops_block(t: Table) -> str:
    names = ["Op" + op.camel for op in t.binary]
    nw = max(len(n) for n in names)
    vw = max(len(str(op.value)) for op in t.binary)
    # Blank lines keep the markers out of the doc comments.
    lines = ["", "// Binary operations.", "const ("]
    for name, op in zip(names, t.binary):
        lines.append(f"\t{name.ljust(nw)} Op = {str(op.value).ljust(vw)} // {go_doc(op.doc)}")
    lines += [")", "", "// NumOps is the number of Op values.", f"const NumOps = {len(t.binary)}", "",
              "var opNames = [NumOps]string{"]
    # Tabs count as 4 columns here; gofmt keeps whatever rows it is given.
    rows = wrap([f'"{op.name}",' for op in t.binary], "    ", "    ", 100)
    lines += ["\t" + r[4:] for r in rows]
    lines += ["}", ""]
    return "\n".join(lines) + "\n"


def go_unary_block(t: Table) -> str:
    names = ["Unary" + op.camel for op in t.unary]
    nw = max(len(n) for n in names)
    vw = max(len(str(op.value)) for op in t.unary)
    lines = ["", "// Unary operations.", "const ("]
    for name, op in zip(names, t.unary):
        doc = go_doc(op.doc).replace("BC_GELU_TANH", "GeluTanh")
        if op.params:
            doc += f" Params: {op.params}."
        lines.append(f"\t{name.ljust(nw)} UnaryOp = {str(op.value).ljust(vw)} // {doc}")
    lines += [")", "", "// NumUnaryOps is the number of UnaryOp values.",
              f"const NumUnaryOps = {len(t.unary)}", "",
              "var unaryOpNames = [NumUnaryOps]string{"]
    rows = wrap([f'"{op.name}",' for op in t.unary], "    ", "    ", 100)
    lines += ["\t" + r[4:] for r in rows]
    lines += ["}", "", "var unaryParamNames = [NumUnaryOps][]string{"]
    with_params = [op for op in t.unary if op.param_names]
    kw = max(len(op.camel) for op in with_params) + len("Unary:") if with_params else 0
    for op in with_params:
        names = ", ".join('"' + n + '"' for n in op.param_names)
        lines.append(f"\t{('Unary' + op.camel + ':').ljust(kw)} {{{names}}},")
    lines += ["}", ""]
    return "\n".join(lines) + "\n"


def go_unary_named(t: Table) -> str:
    out = [f"// Code generated {GENERATED}; DO NOT EDIT.\n\npackage bcast\n"]
    for op in t.unary:
        n, c, call = op.camel, "Unary" + op.camel, f"{op.name}(x)"
        dflt = " with the default parameters (see UnaryWith)" if op.params else ""
        out.append(f"""
// {n} returns {call}{dflt}, on Default().
// {go_doc(op.doc).replace("BC_GELU_TANH", "GeluTanh")}
func {n}(x *Tensor) (*Tensor, error) {{ return defaultContext.Unary({c}, x) }}

// {n}Out writes {call} into out, on Default().
func {n}Out(x, out *Tensor) error {{ return defaultContext.UnaryOut({c}, x, out) }}

// {n}InPlace sets x = {call}, on Default().
func {n}InPlace(x *Tensor) error {{ return defaultContext.UnaryInPlace({c}, x) }}

// {n} returns {call}{dflt}, on c.
func (c *Context) {n}(x *Tensor) (*Tensor, error) {{ return c.Unary({c}, x) }}

// {n}Out writes {call} into out, on c.
func (c *Context) {n}Out(x, out *Tensor) error {{ return c.UnaryOut({c}, x, out) }}

// {n}InPlace sets x = {call}, on c.
func (c *Context) {n}InPlace(x *Tensor) error {{ return c.UnaryInPlace({c}, x) }}
""")
    return "".join(out)


def go_reduce_block(t: Table) -> str:
    names = ["Reduce" + op.camel for op in t.reduce]
    nw = max(len(n) for n in names)
    vw = max(len(str(op.value)) for op in t.reduce)
    lines = ["", "// Reductions.", "const ("]
    for name, op in zip(names, t.reduce):
        lines.append(f"\t{name.ljust(nw)} ReduceOp = {str(op.value).ljust(vw)} // {go_doc(op.doc)}")
    lines += [")", "", "// NumReduceOps is the number of ReduceOp values.",
              f"const NumReduceOps = {len(t.reduce)}", "",
              "var reduceOpNames = [NumReduceOps]string{"]
    rows = wrap([f'"{op.name}",' for op in t.reduce], "    ", "    ", 100)
    lines += ["\t" + r[4:] for r in rows]
    lines += ["}", ""]
    return "\n".join(lines) + "\n"


def go_reduce_named(t: Table) -> str:
    out = [f"// Code generated {GENERATED}; DO NOT EDIT.\n\npackage bcast\n"]
    for op in t.reduce:
        n, c, call = op.camel, "Reduce" + op.camel, f"{op.name}(x)"
        out.append(f"""
// {n} returns {call} over dims (nil: every dim), on Default().
// {go_doc(op.doc)}
func {n}(x *Tensor, dims []int, keepdim bool) (*Tensor, error) {{
\treturn defaultContext.Reduce({c}, x, dims, keepdim)
}}

// {n}Out writes {call} over dims into out, on Default().
func {n}Out(x *Tensor, dims []int, keepdim bool, out *Tensor) error {{
\treturn defaultContext.ReduceOut({c}, x, dims, keepdim, out)
}}

// {n} returns {call} over dims (nil: every dim), on c.
func (c *Context) {n}(x *Tensor, dims []int, keepdim bool) (*Tensor, error) {{
\treturn c.Reduce({c}, x, dims, keepdim)
}}

// {n}Out writes {call} over dims into out, on c.
func (c *Context) {n}Out(x *Tensor, dims []int, keepdim bool, out *Tensor) error {{
\treturn c.ReduceOut({c}, x, dims, keepdim, out)
}}
""")
    return "".join(out)


def go_ops_named(t: Table) -> str:
    out = [f"// Code generated {GENERATED}; DO NOT EDIT.\n\npackage bcast\n"]
    for op in t.binary:
        n, c, call = op.camel, "Op" + op.camel, f"{op.name}(a, b)"
        out.append(f"""
// {n} returns {call}, broadcast, on Default().
// {go_doc(op.doc)}
func {n}(a, b *Tensor) (*Tensor, error) {{ return defaultContext.Binary({c}, a, b) }}

// {n}Out writes {call} into out, on Default().
func {n}Out(a, b, out *Tensor) error {{ return defaultContext.BinaryOut({c}, a, b, out) }}

// {n}InPlace writes {call} into a, whose shape and dtype do not change, on Default().
func {n}InPlace(a, b *Tensor) error {{ return defaultContext.BinaryInPlace({c}, a, b) }}

// {n} returns {call}, broadcast, on c.
func (c *Context) {n}(a, b *Tensor) (*Tensor, error) {{ return c.Binary({c}, a, b) }}

// {n}Out writes {call} into out, on c.
func (c *Context) {n}Out(a, b, out *Tensor) error {{ return c.BinaryOut({c}, a, b, out) }}

// {n}InPlace writes {call} into a, whose shape and dtype do not change, on c.
func (c *Context) {n}InPlace(a, b *Tensor) error {{ return c.BinaryInPlace({c}, a, b) }}

// {n}Scalar returns {op.name}(a, s), s a number (see BinaryScalar), on Default().
func {n}Scalar(a *Tensor, s Scalar) (*Tensor, error) {{
	return defaultContext.BinaryScalar({c}, a, s)
}}

// {n}Scalar returns {op.name}(a, s), s a number (see BinaryScalar), on c.
func (c *Context) {n}Scalar(a *Tensor, s Scalar) (*Tensor, error) {{
	return c.BinaryScalar({c}, a, s)
}}
""")
    return "".join(out)


# ---------------------------------------------------------------- docs

def md_cell(text: str) -> str:
    return markdown_escape(text).replace("|", "\\|")


def paragraph(text: str, width: int = 80) -> List[str]:
    """`text` wrapped at `width`, never inside a `code span` or <code>."""
    words = re.findall(r"[^\s`]*`[^`]*`[^\s`]*|\S*<code>.*?</code>\S*|\S+", text)
    return wrap(words, "", "", width)


def ops_md(t: Table) -> str:
    alpha = " and ".join(op.c_enum for op in t.binary if op.has_alpha)
    last = t.binary[-1]
    # An example of the message (<code>, not `...'`, which Doxygen reads as a quote).
    # A dtype each set refuses: PyTorch's name, ours.
    refused = {"kFloating": ("Int", "int32"), "kIntegral": ("Float", "float32"),
               "kIntegralOrBool": ("Float", "float32"), "kNoBool": ("Bool", "bool")}
    example = next((op for d in refused for op in t.binary if op.dtypes == d), None)
    lines = ["# Op table {#optable}", "", f"<!-- Generated {GENERATED}: do not edit. -->", ""]
    lines += paragraph("Every elementwise op of bcast, as `src/op_table.def` describes it.")
    lines.append("")
    lines += paragraph(
        "**Result dtype** is the dtype of the result, where the operands' common dtype is the one "
        "@ref promotion gives. **Dtypes** are the common dtypes the op runs for; any other "
        "fails with BC_ERR_DTYPE and PyTorch's message, naming the **kernel** given here"
        + (f" (<code>\"{example.kernel}\" not implemented for '{refused[example.dtypes][0]}'"
           f"</code> for {example.c_enum} on {refused[example.dtypes][1]})."
           if example else "."))
    lines += ["", "## Binary ops", ""]
    lines += paragraph(
        "Values of ::bc_op, run by bc_binary(), bc_binary_out() and bc_binary_()"
        + (f"; {alpha} also with a scale `alpha` by bc_binary_alpha(), bc_binary_alpha_out() "
           "and bc_binary_alpha_()." if alpha else ".")
        + f" The Rust crate names its methods by the lower-cased op (`{last.snake}`, "
        f"`{last.snake}_out`, `{last.snake}_`), the Go module its functions in CamelCase "
        f"(`{last.camel}`, `{last.camel}Out`, `{last.camel}InPlace`, and "
        f"`{last.camel}Scalar` with a number second); each is also a method of a context "
        f"(`ctx.{last.snake}(&a, &b)`, `ctx.{last.camel}(a, b)`).")
    lines += [
        "",
        "| C enum | value | name | result dtype | dtypes | kernel | doc |",
        "|---|---|---|---|---|---|---|",
    ]
    for op in t.binary:
        lines.append(f"| {op.c_enum} | {op.value} | `{op.name}` | {PROMOTIONS[op.promotion]} | "
                     f"{DTYPE_SETS[op.dtypes]} | `{op.kernel}` | {md_cell(op.doc)} |")
    lines += ["", "## Ternary ops", ""]
    lines += paragraph(
        "Each has C functions of its own, allocating, out= and in place; the operands are "
        "named as in PyTorch's messages.")
    lines += [
        "",
        "| C functions | name | operands | dtypes | kernel | doc |",
        "|---|---|---|---|---|---|",
    ]
    for op in t.ternary:
        f = op.c_function
        lines.append(f"| {f}(), {f}_out(), {f}_() | `{op.name}` | "
                     f"{', '.join(f'`{o}`' for o in op.operands)} | {DTYPE_SETS[op.dtypes]} | "
                     f"`{op.kernel}` | {md_cell(op.doc)} |")
    if t.unary:
        lines += ["", "## Unary ops", ""]
        lines += paragraph(
            "Values of ::bc_unary_op, run by bc_unary(), bc_unary_out() and bc_unary_(), and "
            "with parameters (PyTorch's, in its order, as ::bc_unary_params holds them) by "
            "bc_unary_ex(), bc_unary_ex_out() and bc_unary_ex_(). For unary ops the result "
            "dtype is the input's (common dtype), float32 for integers and bool (kToFloat), "
            "or bool (predicates).")
        lines += [
            "",
            "| C enum | value | name | result dtype | dtypes | kernel | params | doc |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for op in t.unary:
            params = md_cell(op.params) if op.params else "-"
            lines.append(f"| {op.c_enum} | {op.value} | `{op.name}` | {PROMOTIONS[op.promotion]} | "
                         f"{DTYPE_SETS[op.dtypes]} | `{op.kernel}` | {params} | {md_cell(op.doc)} |")
    if t.reduce:
        last = t.reduce[-1]
        lines += ["", "## Reductions", ""]
        lines += paragraph(
            "Values of ::bc_reduce_op, run over a list of dims (or every dim) by bc_reduce() and "
            "bc_reduce_out(), and with PyTorch's `dtype=` or var's and std's `correction` "
            "(::bc_reduce_params) by bc_reduce_ex() and bc_reduce_ex_out(); `torch.max(x, dim)` "
            "and `torch.min(x, dim)`, values and indices, are bc_max_dim() and bc_min_dim(). "
            "**Result dtype** is the result's without `dtype=` or out=; **dtypes** are the "
            "input dtypes the op takes (others fail with BC_ERR_DTYPE). The Rust crate names "
            f"its methods by the op (`x.{last.snake}(&dims, keepdim)`, `{last.snake}_out`, "
            f"`{last.snake}_all()`), the Go module its functions in CamelCase "
            f"(`{last.camel}(x, dims, keepdim)`, `{last.camel}Out`); each is also a method of "
            "a context.")
        lines += [
            "",
            "| C enum | value | name | result dtype | dtypes | doc |",
            "|---|---|---|---|---|---|",
        ]
        for op in t.reduce:
            lines.append(f"| {op.c_enum} | {op.value} | `{op.name}` | {REDUCE_RESULTS[op.result]} | "
                         f"{DTYPE_SETS[op.dtypes]} | {md_cell(op.doc)} |")
    return "\n".join(lines) + "\n"


def ops_table_py(t: Table) -> str:
    def row(d: dict) -> str:
        return "    {" + ", ".join(f"{k!r}: {v!r}" for k, v in d.items()) + "},"

    lines = [
        f'"""The op table of src/op_table.def as data, for tests and benchmarks.',
        "",
        f"Generated {GENERATED}: do not edit.",
        "BINARY_OPS are in bc_op order (value == index); TERNARY_OPS have C",
        "functions of their own (bc_<name>). promotion and dtypes are the table's",
        "enumerators (kPromote, kNoBool, ...); kernel is PyTorch's kernel name in",
        "'\"<kernel>\" not implemented for ...' messages. UNARY_OPS and REDUCE_OPS",
        "are in bc_unary_op and bc_reduce_op order; a reduction's result is its",
        "result dtype's enumerator (kReduceSum, kReduceInt64, ...).",
        '"""',
        "",
        "BINARY_OPS = [",
    ]
    for op in t.binary:
        lines.append(row({"id": op.id, "value": op.value, "name": op.name,
                          "promotion": op.promotion, "dtypes": op.dtypes, "kernel": op.kernel,
                          "alpha": op.has_alpha, "doc": op.doc}))
    lines += ["]", "", "TERNARY_OPS = ["]
    for op in t.ternary:
        lines.append(row({"id": op.id, "name": op.name, "dtypes": op.dtypes, "kernel": op.kernel,
                          "operands": op.operands, "doc": op.doc}))
    lines += ["]", "", "UNARY_OPS = ["]
    for op in t.unary:
        lines.append(row({"id": op.id, "value": op.value, "name": op.name,
                          "promotion": op.promotion, "dtypes": op.dtypes, "kernel": op.kernel,
                          "params": op.param_names, "defaults": op.param_defaults,
                          "doc": op.doc}))
    lines += ["]", "", "REDUCE_OPS = ["]
    for op in t.reduce:
        lines.append(row({"id": op.id, "value": op.value, "name": op.name, "dtypes": op.dtypes,
                          "result": op.result, "doc": op.doc}))
    lines += [
        "]",
        "",
        "OP_COUNT = len(BINARY_OPS)",
        "",
        "# bc_op value by bc_op_name() name: BC_OP['bitwise_left_shift'] == 28.",
        "BC_OP = {op['name']: op['value'] for op in BINARY_OPS}",
        "# bc_unary_op value by name: BC_UNARY_OP['exp'] == 16.",
        "BC_UNARY_OP = {op['name']: op['value'] for op in UNARY_OPS}",
        "# bc_reduce_op value by name: BC_REDUCE_OP['count_nonzero'] == 11.",
        "BC_REDUCE_OP = {op['name']: op['value'] for op in REDUCE_OPS}",
    ]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- dtypes, status, options

DTYPE_DEF_PATH = "src/core/dtype_table.def"
HEADER_PATH = "include/bcast/bcast.h"
DTYPE_KINDS = ("kBoolKind", "kUnsignedKind", "kSignedKind", "kFloatKind")

# What the bindings know of each storage type (the table's CType): its size
# in bytes, the Rust type and the Rust variant's doc. A new dtype with a new
# CType adds a row here.
CTYPES = {
    "bool": (1, "bool", "`bool`, one byte holding 0 or 1."),
    "uint8_t": (1, "u8", "`u8`."),
    "int8_t": (1, "i8", "`i8`."),
    "int16_t": (2, "i16", "`i16`."),
    "int32_t": (4, "i32", "`i32`."),
    "int64_t": (8, "i64", "`i64`."),
    "f16": (2, "F16", "IEEE binary16 ([`F16`])."),
    "bf16": (2, "BF16", "bfloat16 ([`BF16`])."),
    "float": (4, "f32", "`f32`."),
    "double": (8, "f64", "`f64`."),
}
# The words of a dtype Id, as the bindings spell them: (Rust, Go).
DTYPE_WORDS = {"BOOL": ("Bool", "Bool"), "UINT": ("UInt", "Uint"), "INT": ("Int", "Int"),
               "FLOAT": ("Float", "Float"), "BFLOAT": ("BFloat", "BFloat")}


@dataclasses.dataclass(frozen=True)
class Dtype:
    """One BCAST_DTYPE entry of src/core/dtype_table.def; value is its position."""

    id: str
    value: int
    ctype: str
    kind: str
    torch: str
    line: int

    def _name(self, lang: int) -> str:
        m = re.fullmatch(r"([A-Z]+)([0-9]*)", self.id)
        if not m or m.group(1) not in DTYPE_WORDS:
            raise TableError(f"{DTYPE_DEF_PATH}:{self.line}: no spelling of {self.id!r} for the "
                             "bindings (add its word to DTYPE_WORDS in tools/gen_ops.py)")
        return DTYPE_WORDS[m.group(1)][lang] + m.group(2)

    @property
    def c_enum(self) -> str:
        return "BC_" + self.id

    @property
    def rust(self) -> str:
        """Rust variant: UInt8, BFloat16."""
        return self._name(0)

    @property
    def go(self) -> str:
        """Go constant: Uint8, BFloat16."""
        return self._name(1)

    @property
    def torch_python(self) -> str:
        """PyTorch's Python name: torch.bfloat16."""
        return "torch." + self.id.lower()

    @property
    def size(self) -> int:
        return CTYPES[self.ctype][0]

    @property
    def rust_type(self) -> str:
        return CTYPES[self.ctype][1]


def parse_dtypes(text: str, where: str = DTYPE_DEF_PATH) -> Tuple[Dtype, ...]:
    """The rows of a dtype_table.def."""
    toks = _tokens(text, where)
    out: List[Dtype] = []
    i = 0
    while i < len(toks):
        _, macro, line = toks[i]
        if macro != "BCAST_DTYPE" or i + 1 == len(toks) or toks[i + 1][1] != "(":
            raise TableError(f"{where}:{line}: expected a BCAST_DTYPE entry, found {macro!r}")
        args, i = _parse_args(toks, i + 1, where)
        if len(args) != 8:
            raise TableError(f"{where}:{line}: BCAST_DTYPE takes 8 arguments, got {len(args)}")
        ctype = _want(args[1], "ident", "CType", where)
        if ctype not in CTYPES:
            raise TableError(f"{where}:{line}: CType {ctype!r} unknown to the bindings "
                             "(add it to CTYPES in tools/gen_ops.py)")
        out.append(Dtype(id=_want(args[0], "ident", "Id", where, r"[A-Z][A-Z0-9]*"),
                         value=len(out), ctype=ctype,
                         kind=_want_in(args[2], dict.fromkeys(DTYPE_KINDS, ""), "kind", where),
                         torch=_want(args[3], "string", "torch", where, r"[A-Za-z0-9]+"),
                         line=line))
    if not out:
        raise TableError(f"{where}: no BCAST_DTYPE entries")
    return tuple(out)


@dataclasses.dataclass(frozen=True)
class Enumerator:
    """One enumerator of a C enum of the header, with its Doxygen doc as one line."""

    name: str
    value: int
    doc: str


def _doc_text(comment: str) -> str:
    body = re.sub(r"^/\*\*<?|\*/$", "", comment)
    return " ".join(l.strip().lstrip("*").strip() for l in body.splitlines()).strip()


def parse_c_enum(header: str, name: str, where: str = HEADER_PATH) -> Tuple[Enumerator, ...]:
    """The enumerators of `typedef enum <name> { ... } <name>;` in the header,
    each with its doc (a `/** ... */` before it or a `/**< ... */` after it)."""
    m = re.search(rf"typedef enum {name} \{{(.*?)\}} {name};", header, re.S)
    if not m:
        raise TableError(f"{where}: no `typedef enum {name} {{ ... }} {name};`")
    out: List[Enumerator] = []
    docs: Dict[str, str] = {}
    pending: Optional[str] = None
    for t in re.finditer(r"/\*\*<.*?\*/|/\*\*.*?\*/|(?P<id>[A-Z][A-Z0-9_]*)\s*=\s*(?P<v>[0-9]+)",
                         m.group(1), re.S):
        if t.group("id"):
            out.append(Enumerator(t.group("id"), int(t.group("v")), ""))
            if pending is not None:
                docs[t.group("id")], pending = pending, None
        elif t.group(0).startswith("/**<"):
            if not out:
                raise TableError(f"{where}: enum {name}: a trailing doc before any enumerator")
            docs[out[-1].name] = _doc_text(t.group(0))
        else:
            pending = _doc_text(t.group(0))
    out = [dataclasses.replace(e, doc=docs.get(e.name, "")) for e in out]
    for k, e in enumerate(out):
        if e.value != k:
            raise TableError(f"{where}: enum {name}: {e.name} = {e.value}, expected {k} "
                             "(the bindings index tables by value)")
        if not e.doc:
            raise TableError(f"{where}: enum {name}: {e.name} has no doc comment")
    return tuple(out)


@dataclasses.dataclass(frozen=True)
class Header:
    """What the generator reads from include/bcast/bcast.h."""

    status: Tuple[Enumerator, ...]
    options: Tuple[Enumerator, ...]
    dtypes: Tuple[Enumerator, ...]
    text: str


def load_header(root: Path = ROOT) -> Header:
    text = (root / HEADER_PATH).read_text(encoding="utf-8")
    return Header(parse_c_enum(text, "bc_status"), parse_c_enum(text, "bc_option"),
                  parse_c_enum(text, "bc_dtype"), text)


def check_dtypes(dtypes: Sequence[Dtype], header: Header) -> None:
    """The header's bc_dtype (hand-written: its docs are C's) lists the table's
    dtypes in the table's order."""
    want = [d.c_enum for d in dtypes]
    got = [e.name for e in header.dtypes]
    if want != got:
        raise TableError(f"{HEADER_PATH}: bc_dtype is {got}, but {DTYPE_DEF_PATH} lists {want}")


def status_camel(e: Enumerator) -> str:
    """BC_ERR_NOT_BROADCASTABLE -> NotBroadcastable."""
    return "".join(w.capitalize() for w in e.name[len("BC_ERR_"):].split("_"))


def _errors(h: Header) -> List[Enumerator]:
    if h.status[0].name != "BC_OK":
        raise TableError(f"{HEADER_PATH}: bc_status must start with BC_OK = 0")
    bad = [e.name for e in h.status[1:] if not e.name.startswith("BC_ERR_")]
    if bad:
        raise TableError(f"{HEADER_PATH}: bc_status codes other than BC_OK start BC_ERR_: {bad}")
    return list(h.status[1:])


# -- Rust

def _rust_sys_enum(c_type: str, what: str, names: Sequence[Tuple[str, int]]) -> List[str]:
    lines = [f"/// `enum {c_type}`: {what}", f"pub type {c_type} = bc_enum_repr;"]
    lines += [f"pub const {n}: {c_type} = {v};" for n, v in names]
    return lines


def rust_sys_status(h: Header) -> str:
    lines = _rust_sys_enum("bc_status", "result of every fallible call.",
                           [(e.name, e.value) for e in h.status])
    return "\n".join(lines) + "\n"


def rust_sys_options(h: Header) -> str:
    lines = _rust_sys_enum("bc_option", "integer settings of a context.",
                           [(e.name, e.value) for e in h.options])
    return "\n".join(lines) + "\n"


def rust_sys_dtypes(ds: Sequence[Dtype]) -> str:
    return "\n".join(_rust_sys_enum("bc_dtype", "element types.",
                                    [(d.c_enum, d.value) for d in ds])) + "\n"


def rust_dtype_variants(ds: Sequence[Dtype]) -> str:
    lines = []
    for d in ds:
        lines += [f"    /// {CTYPES[d.ctype][2]}", f"    {d.rust} = sys::{d.c_enum} as u32,"]
    return "\n".join(lines) + "\n"


def rust_dtype_all(ds: Sequence[Dtype]) -> str:
    lines = ["    /// Every dtype, in `bc_dtype` order.", f"    pub const ALL: [DType; {len(ds)}] = ["]
    lines += [f"        DType::{d.rust}," for d in ds]
    lines.append("    ];")
    return "\n".join(lines) + "\n"


def rust_dtype_torch_names(ds: Sequence[Dtype]) -> str:
    return "".join(f'            DType::{d.rust} => "{d.torch_python}",\n' for d in ds)


def rust_dtype_categories(ds: Sequence[Dtype]) -> str:
    cat = {"kBoolKind": "Bool", "kUnsignedKind": "Integer", "kSignedKind": "Integer",
           "kFloatKind": "Floating"}
    return "".join(f"            DType::{d.rust} => Category::{cat[d.kind]},\n" for d in ds)


def rust_dtype_elements(ds: Sequence[Dtype]) -> str:
    return "".join(f"    {d.rust_type} => {d.rust},\n" for d in ds)


def rust_error_variants(h: Header) -> str:
    lines = []
    for e in _errors(h):
        lines += [f"    /// {markdown_escape(e.doc)}", f"    {status_camel(e)},"]
    return "\n".join(lines) + "\n"


def rust_error_from_raw(h: Header) -> str:
    return "".join(f"            sys::{e.name} => ErrorCode::{status_camel(e)},\n"
                   for e in _errors(h))


def rust_error_raw(h: Header) -> str:
    return "".join(f"            ErrorCode::{status_camel(e)} => sys::{e.name},\n"
                   for e in _errors(h))


# -- Go

def _go_const_block(doc: str, typ: str, rows: Sequence[Tuple[str, int, str]]) -> List[str]:
    nw = max(len(n) for n, _, _ in rows)
    vw = max(len(str(v)) for _, v, _ in rows)
    lines = [f"// {doc}", "const ("]
    for n, v, c in rows:
        lines.append(f"\t{n.ljust(nw)} {typ} = {str(v).ljust(vw)} // {c}" if c
                     else f"\t{n.ljust(nw)} {typ} = {v}")
    return lines + [")"]


def go_dtype_block(ds: Sequence[Dtype]) -> str:
    halves = [d.go for d in ds if d.size == 2 and d.kind == "kFloatKind"]
    doc = "Element types."
    if halves:
        doc += f" {' and '.join(halves)} are held in Go as their uint16 bits."
    lines = [""] + _go_const_block(doc, "DType", [(d.go, d.value, "") for d in ds])
    lines += ["", "var dtypeInfo = [...]struct {",
              "\tname   string // the constant's name",
              "\ttorch  string // PyTorch's Python name",
              "\tscalar string // PyTorch's ScalarType name, in its messages and bc_dtype_name",
              "\tsize   int",
              "}{"]
    lines += [f'\t{{"{d.go}", "{d.torch_python}", "{d.torch}", {d.size}}},' for d in ds]
    lines += ["}", ""]
    return "\n".join(lines) + "\n"


def go_status_doc(doc: str) -> str:
    """A status code's doc in Go's words (a Go caller passes nil or a closed
    tensor where C passes NULL; Go's out= forms are the Out functions)."""
    return doc.replace("NULL pointer", "NULL/closed tensor").replace("out=/in-place", "Out/in-place")


def go_status_block(h: Header) -> str:
    rows = [("OK", 0, "BC_OK; never the code of an *Error.")]
    rows += [("Err" + status_camel(e), e.value, go_status_doc(e.doc)) for e in _errors(h)]
    lines = [""] + _go_const_block("Status codes, with the values of the C enum bc_status.",
                                   "Code", rows)
    lines += ["", "var codeNames = [...]string{"]
    lines += [f'\t"{e.name}",' for e in h.status]
    lines += ["}", ""]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- ternary wrappers

@dataclasses.dataclass(frozen=True)
class CParam:
    type: str  # "tensor", "tensor_out" (bc_tensor**), "double"
    name: str


def c_params(header: str, function: str) -> List[CParam]:
    """The parameters of `BC_API bc_status <function>(...)` after the context."""
    m = re.search(rf"\bBC_API\s+bc_status\s+{function}\(([^)]*)\)", header)
    if not m:
        raise TableError(f"{HEADER_PATH}: no BC_API bc_status {function}()")
    out: List[CParam] = []
    for p in [p.strip() for p in m.group(1).split(",")]:
        pm = re.fullmatch(r"(.*?)\s*(\w+)", p)
        typ, name = " ".join(pm.group(1).replace("*", " * ").split()), pm.group(2)
        kind = {"bc_ctx *": None, "const bc_tensor *": "tensor", "bc_tensor *": "tensor",
                "bc_tensor * *": "tensor_out", "double": "double"}.get(typ, "?")
        if kind == "?":
            raise TableError(f"{HEADER_PATH}: {function}(): parameter {p!r} of a type the "
                             "generated wrappers do not handle (write this op's by hand)")
        if kind:
            out.append(CParam(kind, name))
    return out


# Go notes on a ternary op's operands that the table does not say.
# (The dtypes column is not enough: clamp with one bound takes bool, lerp's
# operands must share one dtype.)
GO_TERNARY_NOTES = {
    "where": "cond must be Bool.",
    "addcdiv": "Integer t1 and t2 are refused, as in PyTorch.",
    "lerp": "The three must share one floating dtype.",
    "clamp": "lo or hi may be nil for no bound, but not both.",
}


def _go_params(ps: Sequence[CParam]) -> str:
    groups: List[Tuple[str, List[str]]] = []
    for p in ps:
        t = {"tensor": "*Tensor", "double": "float64"}[p.type]
        if groups and groups[-1][0] == t:
            groups[-1][1].append(p.name)
        else:
            groups.append((t, [p.name]))
    return ", ".join(f"{', '.join(ns)} {t}" for t, ns in groups)


def go_ternary_named(t: Table, header: Header) -> str:
    out = [f"// Code generated {GENERATED}; DO NOT EDIT.\n\npackage bcast\n\n"
           "/*\n#include \"gobc.h\"\n*/\nimport \"C\"\n\nimport \"runtime\"\n"]
    for op in t.ternary:
        n = "".join(w.capitalize() for w in op.name.split("_"))
        forms = {"": c_params(header.text, f"bc_ctx_{op.name}"),
                 "Out": c_params(header.text, f"bc_ctx_{op.name}_out"),
                 "InPlace": c_params(header.text, f"bc_ctx_{op.name}_")}
        alloc = [p for p in forms[""] if p.type != "tensor_out"]
        call = f"{op.name}({', '.join(p.name for p in alloc)})"
        doc = [go_doc(op.doc)]
        if op.name in GO_TERNARY_NOTES:
            doc.append(GO_TERNARY_NOTES[op.name])
        docs = {
            "": [f"{n} returns {call}, the operands broadcast together, on c."] + doc,
            "Out": [f"{n}Out writes {call} into out, on c."],
            "InPlace": [f"{n}InPlace writes {n}'s result into its first operand, self, whose "
                        f"shape and dtype do not change (C's bc_{op.name}_), on c."],
        }
        for form, ps in forms.items():
            args = [p for p in ps if p.type != "tensor_out"]
            tensors = [p.name for p in args if p.type == "tensor"]
            k = iter(range(len(tensors)))
            cargs = ", ".join("C.double(%s)" % p.name if p.type == "double"
                              else "out" if p.type == "tensor_out" else f"h[{next(k)}]"
                              for p in ps)
            sig = _go_params(args)
            names = ", ".join(p.name for p in args)
            cfn = f"C.bc_ctx_{op.name}{'_out' if form == 'Out' else '_' if form else ''}"
            keep = "".join(f"\truntime.KeepAlive({x})\n" for x in tensors)
            text = " ".join(docs[form])
            comment = "\n".join("// " + l for l in wrap(text.split(), "", "", 77))
            if form == "":
                body = (f"\th, err := handles({', '.join(tensors)})\n\tif err != nil {{\n"
                        f"\t\treturn nil, err\n\t}}\n"
                        f"\tt, err := c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status {{\n"
                        f"\t\treturn {cfn}(l, {cargs})\n\t}})\n{keep}\treturn t, err\n")
                ret = "(*Tensor, error)"
            else:
                body = (f"\th, err := handles({', '.join(tensors)})\n\tif err != nil {{\n"
                        f"\t\treturn err\n\t}}\n"
                        f"\terr = c.do(func(l *C.bc_ctx) C.bc_status {{\n"
                        f"\t\treturn {cfn}(l, {cargs})\n\t}})\n{keep}\treturn err\n")
                ret = "error"
            out.append(f"\n{comment}\nfunc (c *Context) {n}{form}({sig}) {ret} {{\n{body}}}\n"
                       f"\n// {n}{form} is Default().{n}{form}.\n"
                       f"func {n}{form}({sig}) {ret} {{\n"
                       f"\treturn defaultContext.{n}{form}({names})\n}}\n")
    return "".join(out)


def rust_ternary_value_methods(t: Table, header: Header) -> str:
    """Lines of `ternary_value_methods!`: the ternary ops whose C functions take
    three tensors and a `double value` (addcmul, addcdiv)."""
    lines = []
    for op in t.ternary:
        if [p.type for p in c_params(header.text, f"bc_ctx_{op.name}")] != \
                ["tensor", "tensor", "tensor", "double", "tensor_out"]:
            continue
        docs = [f"`{op.doc.rstrip('.')}` (`t1`, `t2`: PyTorch's `{op.operands[1]}`, "
                f"`{op.operands[2]}`)."]
        if op.dtypes != "kAnyDtype":
            docs.append(f"Dtypes: {DTYPE_SETS[op.dtypes]}.")
        n = op.name
        lines.append(f"    {n}, {n}_out, {n}_ => bc_ctx_{n}, bc_ctx_{n}_out, bc_ctx_{n}_,")
        lines.append(",\n".join(f'        "{d}"' for d in docs) + ";")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- outputs

def _check_ternary_functions(t: Table, header: str) -> None:
    for op in t.ternary:
        for f in (op.c_function, op.c_function + "_out", op.c_function + "_"):
            if not re.search(rf"\bBC_API\b[^;]*\b{f}\(", header):
                raise TableError(f"{DEF_PATH}:{op.line}: ternary op {op.name!r} has no {f}() "
                                 "in include/bcast/bcast.h")


# The C functions that the generated reduction wrappers call, with their
# parameters after the context: one list for the Rust and Go wrappers.
REDUCE_FUNCTIONS = {
    "bc_reduce": "bc_reduce_op op, const bc_tensor* x, const int64_t* dims, size_t ndims, "
                 "int keepdim, bc_tensor** out",
    "bc_reduce_out": "bc_reduce_op op, const bc_tensor* x, const int64_t* dims, size_t ndims, "
                     "int keepdim, bc_tensor* out",
}


def _check_reduce_functions(t: Table, header: str) -> None:
    """The functions Rust's and Go's named reductions call exist, plain and
    bc_ctx_, with the parameters the wrappers pass."""
    if not t.reduce:
        return
    for f, params in REDUCE_FUNCTIONS.items():
        for name, ps in ((f, params), ("bc_ctx_" + f[3:], "bc_ctx* ctx, " + params)):
            m = re.search(rf"\bBC_API\s+bc_status\s+{name}\(([^)]*)\)", header)
            got = " ".join(m.group(1).replace("*", " * ").split()) if m else None
            if got != " ".join(ps.replace("*", " * ").split()):
                raise TableError(f"{HEADER_PATH}: expected BC_API bc_status {name}({ps}), "
                                 f"found {got!r} (the generated reductions call it)")


def _begin(source: str) -> str:
    return f"// BEGIN GENERATED by tools/gen_ops.py from {source}: do not edit"


DTYPE_BEGIN, HEADER_BEGIN = _begin(DTYPE_DEF_PATH), _begin(HEADER_PATH)


def outputs(t: Table, dtypes: Sequence[Dtype], header: Header
            ) -> List[Tuple[str, Callable[[Optional[str], str], str]]]:
    """(path relative to the root, (old text or None, path) -> new text) of every
    generated file."""

    def blocks(*parts: Tuple[str, str, Sequence[Callable[[], str]]]):
        """Each part: (begin marker, end marker, makers of its blocks in order)."""
        def make(old: Optional[str], path: str) -> str:
            if old is None:
                raise TableError(f"{path}: missing (it holds hand-written code around the "
                                 "GENERATED markers)")
            for begin, end, makers in parts:
                old = splice(old, begin, end, [m() for m in makers], path)
            return old
        return make

    def ops(*makers: Callable[[Table], str]):
        return (SLASH_BEGIN, SLASH_END, [lambda m=m: m(t) for m in makers])

    def dt(*makers: Callable[[Sequence[Dtype]], str]):
        return (DTYPE_BEGIN, SLASH_END, [lambda m=m: m(dtypes) for m in makers])

    def hd(*makers: Callable[[Header], str]):
        return (HEADER_BEGIN, SLASH_END, [lambda m=m: m(header) for m in makers])

    def c_header(old: Optional[str], path: str) -> str:
        new = blocks((C_BEGIN, C_END, [lambda: c_header_block(t), lambda: c_unary_block(t),
                                       lambda: c_reduce_block(t)]))(old, path)
        _check_ternary_functions(t, new)
        _check_reduce_functions(t, new)
        return new

    def whole(maker: Callable[[], str]):
        return lambda old, path: maker()

    check_dtypes(dtypes, header)
    return [
        ("include/bcast/bcast.h", c_header),
        ("bindings/rust/bcast-sys/src/lib.rs",
         blocks(hd(rust_sys_status, rust_sys_options), dt(rust_sys_dtypes), ops(rust_sys_block))),
        ("bindings/rust/bcast/src/ops.rs",
         blocks(ops(rust_variants, rust_all, rust_methods,
                    lambda t: rust_ternary_value_methods(t, header)))),
        ("bindings/rust/bcast/src/unary.rs",
         blocks(ops(rust_unary_variants, rust_unary_all, rust_unary_param_names,
                    rust_unary_methods))),
        ("bindings/rust/bcast/src/reduce.rs",
         blocks(ops(rust_reduce_variants, rust_reduce_all, rust_reduce_methods))),
        ("bindings/rust/bcast/src/dtype.rs",
         blocks(dt(rust_dtype_variants, rust_dtype_all, rust_dtype_torch_names,
                   rust_dtype_categories, rust_dtype_elements))),
        ("bindings/rust/bcast/src/error.rs",
         blocks(hd(rust_error_variants, rust_error_from_raw, rust_error_raw))),
        ("bindings/go/ops.go", blocks(ops(go_ops_block))),
        ("bindings/go/ops_named.go", whole(lambda: go_ops_named(t))),
        ("bindings/go/ternary_named.go", whole(lambda: go_ternary_named(t, header))),
        ("bindings/go/unary.go", blocks(ops(go_unary_block))),
        ("bindings/go/unary_named.go", whole(lambda: go_unary_named(t))),
        ("bindings/go/reduce.go", blocks(ops(go_reduce_block))),
        ("bindings/go/reduce_named.go", whole(lambda: go_reduce_named(t))),
        ("bindings/go/dtype.go", blocks(dt(go_dtype_block))),
        ("bindings/go/errors.go", blocks(hd(go_status_block))),
        ("docs/ops.md", whole(lambda: ops_md(t))),
        ("tests/differential/ops_table.py", whole(lambda: ops_table_py(t))),
    ]


def _read(path: Path) -> Optional[str]:
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    except FileNotFoundError:
        return None


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 if a generated file is out of date")
    ap.add_argument("--diff", action="store_true", help="with --check: show unified diffs")
    ap.add_argument("--root", type=Path, default=ROOT, help="repository root (default: %(default)s)")
    args = ap.parse_args(argv)
    try:
        table = load(args.root / DEF_PATH)
        dtypes = parse_dtypes((args.root / DTYPE_DEF_PATH).read_text(encoding="utf-8"),
                              str(args.root / DTYPE_DEF_PATH))
        header = load_header(args.root)
        stale = []
        for rel, make in outputs(table, dtypes, header):
            path = args.root / rel
            old = _read(path)
            new = make(old, rel)
            if new == old:
                continue
            stale.append(rel)
            if args.check:
                if args.diff:
                    sys.stdout.writelines(difflib.unified_diff(
                        (old or "").splitlines(keepends=True), new.splitlines(keepends=True),
                        f"a/{rel}", f"b/{rel}"))
            else:
                with open(path, "w", encoding="utf-8", newline="") as f:
                    f.write(new)
    except TableError as e:
        print(f"gen_ops.py: {e}", file=sys.stderr)
        return 2
    if args.check and stale:
        print("gen_ops.py: out of date with src/op_table.def, src/core/dtype_table.def or "
              "include/bcast/bcast.h (run python3 tools/gen_ops.py):",
              file=sys.stderr)
        for rel in stale:
            print(f"  {rel}", file=sys.stderr)
        return 1
    if not args.check:
        for rel in stale:
            print(f"wrote {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
