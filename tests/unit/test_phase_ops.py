"""Ops that passes create between flow and vm print in a form ireec's parser reads back:
``stream.cmd.dispatch`` (pretty form) and stack temporaries built with ``build_alloc``."""
import pytest

from ireec.dialects.memref import build_alloc
from ireec.frontend.parser import parse_source
from ireec.ir import types as T
from ireec.ir.core import Builder
from ireec.ir.diagnostics import CompileError
from ireec.ir.printer import print_module

DISPATCH = """module {
  func.func @f() {
    %0 = "stream.resource.result"() {index = 0 : index, size = 36 : index} : () -> (!stream.resource<external>)
    %1 = "stream.resource.constants"() {pool = @pool} : () -> (!stream.resource<constant>)
    stream.cmd.dispatch @exe::@entry[4, 1, 1] {
      ro %1[0 for 60] : !stream.resource<constant>,
      rw %0[64 for 36] : !stream.resource<external>
    } {tag = "x"}
    stream.cmd.dispatch @exe::@entry {
    }
    return
  }
}
"""


def test_stream_cmd_dispatch_round_trips():
    m = parse_source(DISPATCH, "dispatch.mlir")
    assert print_module(m) == DISPATCH
    d = [op for op in m.walk() if op.name == "stream.cmd.dispatch"]
    assert [a.value for a in d[0].attributes["access"].value] == ["ro", "rw"]
    assert d[0].attributes["offsets"].value == (0, 64)
    assert d[0].attributes["sizes"].value == (60, 36)
    assert d[0].attributes["workgroup_count"].value == (4, 1, 1)
    assert len(d[1].operands) == 0
    generic = print_module(m, generic=True)
    assert '"stream.cmd.dispatch"(' in generic
    assert print_module(parse_source(generic, "generic.mlir")) == DISPATCH


def test_stream_cmd_dispatch_bad_access_is_located():
    bad = DISPATCH.replace("ro %1", "rx %1")
    with pytest.raises(CompileError) as e:
        parse_source(bad, "bad.mlir")
    assert e.value.loc.line == 6 and "ro, wo, rw" in e.value.message


def test_build_alloc_prints_and_parses_back():
    m = parse_source("func.func @g(%n: index) { return }", "g.mlir")
    entry = m.body.ops[0].regions[0].blocks[0]
    b = Builder(entry, 0)
    build_alloc(b, "memref.alloca", T.MemRefType((4, 8), T.f32))
    op = build_alloc(b, "memref.alloc", T.MemRefType((None, 8), T.f32), [entry.args[0]])
    assert op.attributes["operandSegmentSizes"].value == (1, 0)
    text = print_module(m)
    assert "memref.alloca() : memref<4x8xf32>" in text
    assert "memref.alloc(%arg0) : memref<?x8xf32>" in text
    assert print_module(parse_source(text, "alloc.mlir")) == text
