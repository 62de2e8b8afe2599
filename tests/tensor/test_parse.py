"""The parser: every form of the grammar, and every malformed expression or schedule as a
CompileError with the expression, a caret under the offending character and what to write."""

from __future__ import annotations

import pytest

import simt
from simt.tensor import i
from simt.tensor.parse import parse


def test_forms() -> None:
    e = parse("ik*kj~ijk")
    assert (e.op, e.inputs, e.output, e.reduced) == ("*", ("ik", "kj"), "ijk", ())
    e = parse("+ijk~ij")
    assert (e.op, e.inputs, e.output, e.reduced) == ("+", ("ijk",), "ij", ("k",))
    assert parse("ij~ij").op == "+"  # the identity is the unary add
    assert parse(".+.~.").inputs == ("", "")
    assert parse("+ij~.").output == ""
    e = parse("  ij + i ~ ij |  | i j 1 ")
    assert (e.inputs, e.output, [str(a) for a in e.order]) == (("ij", "i"), "ij", ["i", "j", "1"])
    for sym in (">>", ">=", "<<", "<=", "==", "!=", "&&", "||", "^^", "!!"):
        assert parse(f"{sym}ij~ij").op == sym
    assert parse("i>>i~i").op == ">>" and parse("i>i~i").op == ">"


def test_schedule() -> None:
    e = parse("ik*kj~ijk|i:2:4,k:8|ik0i'k'i''j")
    assert e.splits == (("i", (2, 4)), ("k", (8,)))
    assert [str(a) for a in e.order] == ["i", "k", "0", "i'", "k'", "i''", "j"]
    assert str(parse("+ijk~ij | i:16,k:16 | ii'j!kk'0")) == "+ijk~ij | i:16,k:16 | ii'j!kk'0"
    assert parse("+ijk~ij|i:2,k:4|").order == ()


BAD = [
    ("", 0, "expected an index expression"),
    ("ik*kj", 5, "expected `~`"),
    ("ik kj~ij", 3, "expected an op"),
    ("ik*~ij", 3, "second input pattern"),
    ("iK*kj~ij", 1, "expected an op"),
    ("ij~", 3, "output pattern"),
    (".i+i~i", 1, "scalar pattern"),
    ("i+i~ii", 5, "appears twice"),
    ("i+i~ij", 5, "in no input"),
    ("ik*kj~ij", 1, "binary expression cannot reduce"),
    ("-ij~i", 0, "cannot reduce"),
    ("i!!i~i", 1, "unary only"),
    ("i+i~i extra", 6, "unexpected text"),
    ("+ijk~ij | i:16", 14, "second `|`"),
    ("+ijk~ij | i16 | ijk", 11, "expected `:`"),
    ("+ijk~ij | i:0 | ijk", 12, "at least 1"),
    ("+ijk~ij | i:2,i:4 | ijk", 14, "split twice"),
    ("+ijk~ij | z:2 | ijk", 10, "does not have"),
    ("+ijk~ij | i:2 | ii'jz", 20, "does not have"),
    ("+ijk~ij | i:2 | ii''jk", 17, "split 1 time"),
    ("+ijk~ij | | ijjk", 14, "appears twice"),
    ("+ijk~ij | | ij", 14, "does not place loop `k`"),
    ("+ijk~ij | | ijk1", 15, "has 1 input"),
    ("ij+i~ij | | ij00", 15, "appears twice"),
    ("i+i~i | | i!", 11, "reduces nothing"),
    ("+ijk~ij | | i!jk", 13, "before output loop"),
    ("+ijk~ij | | ijk!", 15, "after reduction loop"),
    ("+ijk~ij | | ij#k", 14, "expected a loop"),
]


@pytest.mark.parametrize("text,col,message", BAD, ids=[b[0] or "empty" for b in BAD])
def test_errors_point_at_the_text(text: str, col: int, message: str) -> None:
    with pytest.raises(simt.CompileError) as info:
        i(text)
    err = info.value
    assert message in str(err), str(err)
    assert err.col == col, str(err)
    # the file and line of the call, the expression, and a caret under the column
    lines = str(err).splitlines()
    assert lines[0].startswith(__file__), lines[0]
    assert lines[1] == "    " + text
    assert lines[2] == "    " + " " * col + "^"


def test_non_string_is_a_compile_error() -> None:
    with pytest.raises(simt.CompileError, match="is a string"):
        i(3)  # type: ignore[arg-type]
