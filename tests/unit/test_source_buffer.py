"""Long hex string literals decoded as the source is read (ireec/frontend/source.py).

A ``"0x…"`` literal of at least MIN_ELIDED_HEX hex digits is taken out of the text the parser
sees (``"0x"`` stays) and decoded straight from the file's bytes. What must not change:
the parsed module, every error's message and true ``file:line:col``, and the caret of the
rendered error (under the offending token of the shown, shorter line).
"""
from __future__ import annotations

import pytest

from ireec.frontend import source as S
from ireec.frontend.parser import parse_file, parse_source
from ireec.frontend.source import MIN_ELIDED_HEX, SourceBuffer, load_source
from ireec.ir.diagnostics import CompileError, decode_source
from ireec.ir.printer import print_module

N = 2500                                   # i8 elements: 5000 hex digits, elided
HEX = "".join(f"{(i * 37) & 0xFF:02X}" for i in range(N))
SHORT = "0102030405060708"                 # stays inline


def _func(lit: str, ty: str = f"tensor<{N}xi8>", n: int = N) -> str:
    return (f"func.func @f() -> tensor<{n}xi8> {{\n"
            f"  %c = stablehlo.constant dense<\"0x{lit}\"> : {ty}\n"
            f"  return %c : tensor<{n}xi8>\n}}\n")


def _error(src, name="t.mlir") -> CompileError:
    with pytest.raises(CompileError) as ei:
        parse_source(src, name)
    return ei.value


def _error_inline(src: str, monkeypatch, name="t.mlir") -> CompileError:
    """The error with nothing elided: what the parser reported before long literals were."""
    with monkeypatch.context() as m:
        m.setattr(S, "MIN_ELIDED_HEX", 1 << 62)
        return _error(src, name)


def test_long_literal_elided_short_one_inline():
    src = _func(HEX) + _func(SHORT, "tensor<8xi8>", 8).replace("@f", "@g")
    buf = SourceBuffer.from_text(src, "t.mlir")
    assert MIN_ELIDED_HEX == 4096 and len(HEX) > MIN_ELIDED_HEX
    assert HEX not in buf.text and f'dense<"0x{SHORT}">' in buf.text
    assert 'dense<"0x"> : tensor<2500xi8>' in buf.text
    (pos, blob), = buf.blobs.items()
    assert buf.text[pos: pos + 4] == '"0x"' and blob == bytes.fromhex(HEX)
    assert buf.holes == [(pos + 3, len(HEX))]
    # the same from bytes; a text without long literals is kept as is (not copied)
    assert SourceBuffer.from_bytes(src.encode(), "t.mlir").text == buf.text
    plain = _func(SHORT, "tensor<8xi8>", 8)
    assert SourceBuffer.from_text(plain, "t.mlir").text is plain


def test_str_and_bytes_give_identical_modules(tmp_path):
    src = _func(HEX) + _func(HEX.lower()).replace("@f", "@g")
    path = tmp_path / "m.mlir"
    path.write_bytes(src.encode())
    from_bytes = print_module(parse_file(str(path)))
    from_str = print_module(parse_source(src, str(path)))
    from_buf = print_module(parse_source(SourceBuffer.from_text(src, "x.mlir"), str(path)))
    assert from_bytes == from_str == from_buf
    assert from_bytes == print_module(parse_source(src, str(path)))  # deterministic
    m = parse_source(load_source(str(path)), str(path))
    vals = [op.attributes["value"] for f in m.body.ops for op in f.regions[0].blocks[0].ops
            if op.name == "stablehlo.constant"]
    assert [v.array.tobytes() for v in vals] == [bytes.fromhex(HEX)] * 2


def test_true_column_after_elided_literal_and_caret_on_shown_line(monkeypatch):
    src = _func(HEX, ty=f"tensor<{N}xq8>")
    e = _error(src)
    line = src.split("\n")[1]
    assert e.message == "unknown type 'q8'"
    assert (e.loc.line, e.loc.col) == (2, line.index("q8") + 1)     # the file's true column
    shown, caret = e.render().split("\n")[1:3]
    assert shown == line.replace(HEX, "")                            # the line as parsed
    assert caret.index("^") == shown.index("q8")                     # under the offending token
    # the error is the one reported with nothing elided (rendered: the whole line, caret at col)
    old = _error_inline(src, monkeypatch)
    assert (e.message, e.loc) == (old.message, old.loc)
    assert old.render().split("\n")[2].index("^") == line.index("q8")


def test_columns_after_two_literals_on_one_line(monkeypatch):
    src = ("func.func @f() -> tensor<2500xi8> {\n"
           f'  %a = stablehlo.constant dense<"0x{HEX}"> : tensor<{N}xi8> %b = stablehlo.constant '
           f'dense<"0x{HEX}"> : tensor<{N}xi8> %% \n}}\n')
    e = _error(src)
    line = src.split("\n")[1]
    assert (e.loc.line, e.loc.col) == (2, line.index("%%") + 1)
    shown, caret = e.render().split("\n")[1:3]
    assert caret.index("^") == shown.index("%%")
    assert (e.message, e.loc) == (lambda o: (o.message, o.loc))(_error_inline(src, monkeypatch))


def test_error_at_the_elided_literal_itself(monkeypatch):
    """An element count that does not fit the type: reported at the literal, as before."""
    src = _func(HEX, ty="tensor<7xi8>", n=7)
    e = _error(src)
    assert "has 2500 elements" in e.message
    shown, caret = e.render().split("\n")[1:3]
    assert shown[caret.index("^"):].startswith('"0x"')
    old = _error_inline(src, monkeypatch)
    assert (e.message, e.loc) == (old.message, old.loc)


@pytest.mark.parametrize("body", [HEX[:-1], HEX[:100] + "G" + HEX[101:], HEX[:100] + " " + HEX[100:]],
                         ids=["odd-length", "not-hex", "space"])
def test_invalid_long_hex_left_inline_with_todays_error(body, monkeypatch):
    src = _func(body)
    buf = SourceBuffer.from_text(src, "t.mlir")
    assert not buf.blobs and buf.text is src
    assert not SourceBuffer.from_bytes(src.encode(), "t.mlir").blobs
    if body.count(" "):  # bytes.fromhex skips whitespace between bytes: parses as before
        assert print_module(parse_source(src, "t.mlir")) == print_module(
            parse_source(_func(HEX), "t.mlir"))
        return
    e = _error(src)
    assert e.message == "dense hex literal is not valid hex"
    assert (e.message, e.loc) == (lambda o: (o.message, o.loc))(_error_inline(src, monkeypatch))


def test_dialect_resources_blobs_through_bytes(monkeypatch):
    src = ('module {\n  memref.global "private" constant @g : memref<2500xi8> = dense<"0x'
           + HEX + '">\n}\n{-#\n  dialect_resources: {\n    builtin: {\n      r: "0x04000000'
           + HEX + '",\n      s: "0x' + SHORT + '"\n    }\n  }\n#-}\n')
    buf = SourceBuffer.from_text(src, "r.mlir")
    assert len(buf.blobs) == 2
    m = parse_source(buf, "r.mlir")
    assert m.resources == {"r": bytes.fromhex("04000000" + HEX), "s": bytes.fromhex(SHORT)}
    with monkeypatch.context() as mp:
        mp.setattr(S, "MIN_ELIDED_HEX", 1 << 62)
        assert print_module(parse_source(src, "r.mlir")) == print_module(m)
    bad = src.replace('r: "0x04000000' + HEX, 'r: "0x04000000' + HEX[:-3] + "ZZZ")
    e = _error(bad, "r.mlir")
    assert e.message == "resource 'r' is not valid hex"
    assert (e.message, e.loc) == (lambda o: (o.message, o.loc))(_error_inline(bad, monkeypatch, "r.mlir"))


def test_generic_string_and_opaque_text_get_the_hex_back():
    """A long hex literal read as a plain string (or inside a dialect attribute's text) is
    written out again, in upper case."""
    lower = HEX.lower()
    src = ('func.func @f() -> tensor<2500xi8> attributes {s = "0x' + lower
           + '", o = #foo.bar<dense<"0x' + HEX + '">>} {\n'
           f'  %c = stablehlo.constant dense<"0x{HEX}"> : tensor<{N}xi8>\n'
           f'  return %c : tensor<{N}xi8>\n}}\n')
    f = parse_source(src, "s.mlir").body.ops[0]
    assert f.attributes["s"].value == "0x" + HEX
    assert f.attributes["o"].text == '#foo.bar<dense<"0x' + HEX + '">>'


def test_utf8_errors_unchanged(tmp_path):
    data = _func(HEX).encode().replace(b"%c = ", b"%c = \xff", 1)       # bad byte before it
    data2 = _func(HEX).encode().replace(b"> : tensor", b"> : \xc3(tensor", 1)  # after it
    for i, d in enumerate((data, data2)):
        path = tmp_path / f"u{i}.mlir"
        path.write_bytes(d)
        with pytest.raises(CompileError) as want:
            decode_source(d, str(path))
        with pytest.raises(CompileError) as got:
            parse_file(str(path))
        assert (got.value.message, got.value.loc) == (want.value.message, want.value.loc)
        assert got.value.render() == want.value.render()
    # a byte-order mark is dropped; positions and columns as without it
    bom = b"\xef\xbb\xbf" + _func(HEX, ty=f"tensor<{N}xq8>").encode()
    path = tmp_path / "bom.mlir"
    path.write_bytes(bom)
    with pytest.raises(CompileError) as ei:
        parse_file(str(path))
    assert ei.value.loc.col == _func(HEX).split("\n")[1].index(f"tensor<{N}xi8>") + len("tensor<2500x") + 1


def test_unreadable_file(tmp_path):
    with pytest.raises(CompileError) as ei:
        load_source(str(tmp_path / "missing.mlir"))
    assert ei.value.message.startswith("cannot read input file: ")
    assert (ei.value.loc.line, ei.value.loc.col) == (0, 0)


def test_render_unchanged_without_holes():
    src = "func.func @f() {\n\t  %x = bogus.op\n}\n"
    e = _error(src, "plain.mlir")
    assert e.render().split("\n")[1:] == ["\t  %x = bogus.op", "\t       ^"]


def test_line_col_is_the_original_position_in_any_order():
    """Every position of the elided text maps to its line and column in the original, asked
    forwards, backwards or at random (columns count characters, é included)."""
    import random

    orig = (f'a "0x{HEX}" b\né "0x{HEX}" c "0x{HEX}" d\n\n  "0x{SHORT}" e "0x{HEX}"\nf\n')
    buf = SourceBuffer.from_text(orig, "p.mlir")
    assert len(buf.blobs) == 4
    # text position i is original position i + the hex removed before it
    where = [i + sum(r for h, r in buf.holes if h <= i) for i in range(len(buf.text))]
    assert all(orig[j] == c for j, c in zip(where, buf.text))
    want = [(orig.count("\n", 0, j) + 1, j - (orig.rfind("\n", 0, j) + 1) + 1) for j in where]
    order = list(range(len(buf.text)))
    for seq in (order, order[::-1], random.Random(7).sample(order, len(order))):
        assert [buf.line_col(i) for i in seq] == [want[i] for i in seq]


def test_found_text_at_an_elided_literal():
    src = f'func.func @f() -> tensor<2500xi8> {{\n  %c = stablehlo.constant dense<1 "0x{HEX}"> : tensor<{N}xi8>\n}}\n'
    e = _error(src)
    assert e.message == f"expected '>', found '\"0x{HEX[:9]}'"
