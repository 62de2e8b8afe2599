"""The typed, structured-SSA intermediate representation shared by every backend."""

from .builder import Builder
from .nodes import Block, Function, Hidden, Loc, Op, Param, Value, copy_function, walk, walk_blocks
from .ops import Field
from .printer import format_function
from .verify import IRError, verify

__all__ = [
    "Block", "Builder", "Field", "Function", "Hidden", "IRError", "Loc", "Op", "Param", "Value",
    "copy_function", "format_function", "verify", "walk", "walk_blocks",
]  # fmt: skip
