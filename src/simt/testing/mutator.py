"""A front-end mutator: valid kernels mutated into constructs outside the language.

Each mutant inserts one construct the kernel language does not define (every node type of
Python's `ast` that docs/language.md leaves out, in a form Python itself accepts inside a
plain `def`) at a random statement of a generated kernel. simt must answer each with a
`CompileError` located on the inserted lines: never acceptance, never an internal error.

Not mutated, because Python rejects them before simt sees the function: `await`,
`async for`, `async with` and `nonlocal` inside a plain top-level `def`.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass

from .generator import Program, generate

# node type -> snippets (one or more lines; `{v}` is an int32 variable in scope, `{f}` float32)
CONSTRUCTS: dict[str, tuple[str, ...]] = {
    "TryStar": ("try:\n    {v} = {v} + 1\nexcept* ValueError:\n    {v} = 0",),
    "With": ("with {v} as fh:\n    {v} = fh + 1",),  # a number is no context manager
    "ClassDef": ("class Local:\n    z = 1",),
    # functions defined in a kernel are in the language (local_functions.py); recursion,
    # a decorator and **kwargs are not
    "FunctionDef": ("def local(q):\n    return local(q)\n{v} = local({v})",
                    "@staticmethod\ndef local(q):\n    return q"),
    "AsyncFunctionDef": ("async def local(q):\n    return q",),
    "Import": ("import os",),
    "ImportFrom": ("from os import path",),
    "Global": ("global LAUNCH",),
    "Delete": ("del {v}",),
    "RaiseRuntime": ("raise ValueError({v})", "if {v} > 3:\n    raise ValueError({v} + 1)"),
    "Match": ("match {v}:\n    case 1:\n        {v} = 2\n    case _:\n        {v} = 3",),
    # dicts and sets of integer or string keys are in the language (frontend/dicts.py); float
    # and tuple keys, both kinds of key in one dict, and lists as values are not
    "Dict": ("{v} = {{1: [{v}]}}[1][0]", "io[0] = len({{'a': {v}, 2: 1}})"),
    "DictComp": ("{v} = len({{k * 0.5: {v} for k in range(3)}})",),
    "Set": ("{v} = len({{{v}, 0.5}})",),
    "SetComp": ("{v} = len({{(k, {v}) for k in range(3)}})",),
    "Lambda": ("{v} = (lambda **q: 1)()",),
    # (`sum(k for k in range(n))` over a run-time range is in the language: the generator
    # expression is the list of its items there; one bound to a name is a generator)
    "GeneratorExp": ("gen = (k for k in range({v}))", "{v} = len((k for k in range({v})))"),
    "Yield": ("yield {v}",),
    "YieldFrom": ("yield from range({v})",),
    # strings built at run time are in the language (frontend/strings.py), and format specs
    # in them (str_format.py; floats with no type too: their shortest digits), but not a
    # float under the locale's 'n', nor an int written as a float
    "Str": ("io[0] = 'text'", "{v} = {v} + len('ab' + format({f}, 'n'))"),
    "JoinedStr": ("{v} = len(f'{{{f}:n}}')", "{v} = len(f'{{{v}:5e}}')"),
    "ListMixedTypes": ("grow = [1]\ngrow.append(0.5)\nio[0] = grow[1]",),
    "StarredKwargs": ("{v} = max(**{{'a': {v}}})",),
    "Slice": ("{v} = (1, 2, 3)[{v}:]",),
    "NamedExprString": ("{v} = len(s := 'ab')",),
    "Recursion": ("{v} = kernel(fa, ia, ua, fo, io, uo, fx, hist, s0, s1)",),
    # a tuple whose length an `if` inside a run-time loop changes (commit 5dff1f3: it was
    # carried with its old shape and read zeros after the loop)
    "TupleLengthInLoop": (
        "mt_best = [{v}]\nfor mt_q in range({v} % 4):\n    mt_cand = [{v} * mt_q, {v} + mt_q]\n"
        "    if sum(mt_cand) > sum(mt_best):\n        mt_best = mt_cand\n"
        "io[0] = sum(mt_best) + len(mt_best)",
    ),
    "Await": (),  # SyntaxError in a plain def: Python refuses it first
}


# constructs whose refusal must say this (other constructs: any located CompileError)
EXPECTED_WORDS: dict[str, str] = {
    "TupleLengthInLoop": "tuples of different lengths",
}


@dataclass
class Mutant:
    """A kernel with one construct outside the language, and where it was put."""

    seed: int
    construct: str
    source: str
    first_line: int  # 1-based lines of the file the inserted construct occupies
    last_line: int
    program: Program


def mutate(seed: int) -> Mutant:
    """The mutant of `seed`: generated kernel `seed`, one construct (chosen by the seed)
    inserted before one of its top-level statements."""
    r = random.Random(seed * 7919 + 1)
    # the base kernel without the generator's own try statements: a mutant inserting a
    # construct into one (`except*` beside `except`, a bare `try`) would not parse
    program = generate(seed, fp64=False, exceptions=False)
    names = [n for n, snippets in CONSTRUCTS.items() if snippets]
    construct = names[seed % len(names)]
    # `i` (simt.grid(1)) is never reassigned by the generator: always a run-time value
    snippet = r.choice(CONSTRUCTS[construct]).format(v="i", f="x0")
    lines = program.source.splitlines()
    start = next(k for k, ln in enumerate(lines) if ln.startswith("def kernel(")) + 1
    body = [
        k
        for k in range(start + 4, len(lines))
        if lines[k].startswith("    ")
        and not lines[k].startswith("     ")
        and not lines[k].lstrip().startswith(("elif", "else", "except", "finally"))
    ]
    at = r.choice(body) if body else len(lines)
    new = ["    " + ln for ln in snippet.splitlines()]
    out = lines[:at] + new + lines[at:]
    source = "\n".join(out) + "\n"
    prog = dataclasses.replace(program, source=source)  # the launch, extras included
    return Mutant(seed, construct, source, at + 1, at + len(new), prog)


def verdict(m: Mutant) -> str | None:
    """None when simt refused the mutant properly, else what went wrong."""
    from ..errors import CompileError
    from .differential import INTERNAL_WORDS, load

    try:
        kernel = load(m.program)
    except SyntaxError as e:
        return f"the mutant does not parse (the mutator's fault): {e}"
    try:
        kernel.ir(*m.program.make_args())
    except CompileError as e:
        text = str(e)
        bad = [w for w in INTERNAL_WORDS if w in text]
        if bad:
            return f"{m.construct}: the message shows {bad}: {text}"
        line = e.line
        if line is None:
            return f"{m.construct}: a CompileError with no location: {text}"
        if not m.first_line <= line <= m.last_line:
            return (
                f"{m.construct}: located at line {line}, the construct is on lines "
                f"{m.first_line}-{m.last_line}: {text}"
            )
        words = EXPECTED_WORDS.get(m.construct)
        if words is not None and words not in text:
            return f"{m.construct}: the error does not say {words!r}: {text}"
        return None
    except Exception as e:  # noqa: BLE001 - anything else is the finding
        return f"{m.construct}: {type(e).__name__} instead of a CompileError: {e}"
    return f"{m.construct}: accepted (it is outside the language)"
