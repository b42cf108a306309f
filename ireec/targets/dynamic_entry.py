"""The public C entry of a host function with dynamic dimensions (targets ``c``, ``openmp``,
``cuda``): its extent parameters, run-time checks, the loop over slices of mapped
dimensions (``ireec-map-dynamic-dims``, ireec/passes/input/map_dynamic_dims.py) and the
staging of dimensions padded to a bound (``ireec-pad-dynamic-dims-to-bounds``,
ireec/passes/input/pad_dynamic_dims_to_bounds.py).

The public entry takes every dynamic argument dimension as an ``int64_t`` right after its
tensor, in dimension order, and per result with dynamic dimensions an ``int64_t
*result<j>_shape`` it fills (NULL: not wanted). It refuses negative extents, unequal
extents of unified dimensions, failed shape assertions and extents beyond their bound
(IREEC_STATUS_INVALID_ARGUMENT). It then calls the static slice program once per point of
the mapped symbols' iteration space (nested loops in symbol order; a zero extent calls
nothing), each tensor's pointer offset by its linearised index over its own mapped symbols
times its slice's element count. A tensor with padded dimensions is staged: the slice is
copied into (arguments: after zeroing it) or out of (results) a bound-shaped buffer in the
workspace after the arena (``staging_offset`` of the memory plan), and each padded symbol
whose extent the program reads gets an ``int32_t`` the hidden argument points at.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

ALIGNMENT = 64  # bytes, the stream phase's resource alignment


def _align(n: int) -> int:
    return (n + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


class _Dims:
    """The dynamic dimensions of one function: per (argument, dimension) its kind ('s':
    mapped, 'p': padded) and symbol, the parameter names, and the parameter giving each
    symbol's value."""

    def __init__(self, fn: dict, dd: Optional[dict], pd: Optional[dict]):
        self.dd = dd or {"symbols": [], "arg_dims": [], "args": [[] for _ in fn["args"]],
                         "results": [[] for _ in fn["results"]], "checks": []}
        self.pd = pd or {"symbols": [], "args": [{} for _ in fn["args"]],
                         "results": [{} for _ in fn["results"]], "extents": [], "staging": [],
                         "checks": []}
        self.hidden = {i for i in self.pd["extents"] if i >= 0}
        mapped = {(i, d): s for i, d, s in self.dd["arg_dims"]}
        self.dims: List[Tuple[int, int, str, int]] = []   # (arg, dim, kind, symbol)
        for i, t in enumerate(fn["args"]):
            if i in self.hidden:
                continue
            for d in range(t["rank"]):
                if (i, d) in mapped:
                    self.dims.append((i, d, "s", mapped[(i, d)]))
                elif d in self.pd["args"][i]:
                    self.dims.append((i, d, "p", self.pd["args"][i][d]))
        self.names = [f"input{i}_dim{d}" for i, d, _k, _s in self.dims]
        self.rep: Dict[Tuple[str, int], int] = {}         # (kind, symbol) -> index in dims
        for k, (_i, _d, kind, s) in enumerate(self.dims):
            self.rep.setdefault((kind, s), k)

    def value(self, kind: str, s: int) -> str:
        """The C name of symbol ``s`` of ``kind``'s value in the entry."""
        return f"{kind}{s}"

    def tensor_dims(self, kind: str, index: int, rank: int) -> List[Optional[Tuple[str, int]]]:
        """Per dimension of argument (``kind`` 'args') or result ``index``: (kind, symbol) of
        a dynamic one, None for a static one."""
        out: List[Optional[Tuple[str, int]]] = [None] * rank
        for k, s in enumerate(self.dd[kind][index]):
            out[k] = ("s", s)
        for d, s in self.pd[kind][index].items():
            out[d] = ("p", s)
        return out


def dynamic_entry(fn: dict, dd: Optional[dict], pd: Optional[dict], staging_offset: int) -> None:
    """Turn the entry of function ``fn`` (a template dict) into the entry over its dynamic
    dimensions (module docstring): ``dd`` is its ``ireec.dynamic_dims`` and ``pd`` its
    ``ireec.padded_dims`` (``ireec.emitc.entry_abi``), either may be None;
    ``staging_offset``: where the staging buffers start in the workspace."""
    dm = _Dims(fn, dd, pd)
    tdims = [dm.tensor_dims("args", i, t["rank"]) for i, t in enumerate(fn["args"])] + \
        [dm.tensor_dims("results", j, t["rank"]) for j, t in enumerate(fn["results"])]
    _mark_dynamic_tensors(fn, dm, tdims)
    params, names, call_args, null_checks = _dynamic_params(fn, dm, tdims)
    checks = [f"{n} < 0" for n in dm.names]
    checks += [f"{dm.names[k]} != {dm.names[dm.rep[(kind, s)]]}"
               for k, (_a, _d, kind, s) in enumerate(dm.dims) if dm.rep[(kind, s)] != k]
    checks += [f"!({dm.names[dm.rep[('s', s)]]} {op} {c})" for s, op, c in dm.dd["checks"]]
    checks += [f"!({dm.names[dm.rep[('p', s)]]} {op} {c})" for s, op, c in dm.pd["checks"]]
    checks += [f"{dm.names[dm.rep[('p', s)]]} > {b}" for s, (_a, _d, b) in enumerate(dm.pd["symbols"])
               if ("p", s) in dm.rep]
    checks += null_checks + [c for c in fn["checks"] if "workspace" in c]
    lines = _entry_lines(fn, dm, tdims, staging_offset)
    for t, td in zip(fn["args"] + fn["results"], tdims):
        if any(td):
            unit = _bytes_at(t, td)
            t["bytes_c"] = " * ".join([f"(size_t){dm.names[dm.rep[x]]}" for x in td if x] + [str(unit)])
            # The reflection table and header count one unit of the extents (ELEMENT_COUNT
            # and BYTE_SIZE are multiplied by them), as for mapped dimensions.
            esize = t["byte_size"] // max(t["element_count"], 1)
            t["byte_size"], t["element_count"] = unit, unit // esize if esize else 0
    fn["args"] = [t for i, t in enumerate(fn["args"]) if i not in dm.hidden]
    fn["tensors"] = fn["args"] + fn["results"]
    fn.update({"params": params, "param_names": names, "checks": checks,
               "call_args": call_args, "entry_lines": lines, "num_dims": len(dm.dims),
               "dim_params": [f"int64_t {n}" for n in dm.names], "dim_names": dm.names,
               "bounds": [(dm.names[dm.rep[("p", s)]], b) for s, (_a, _d, b) in enumerate(dm.pd["symbols"])
                          if ("p", s) in dm.rep]})


def _bytes_at(t: dict, td) -> int:
    """Bytes of ``t`` with every dynamic dimension 1 (what the extents multiply)."""
    n = 1
    for x, dyn in zip(t["shape"], td):
        n *= 1 if dyn else x
    return n * (t["byte_size"] // max(t["element_count"], 1)) if t["element_count"] else 0


def _mark_dynamic_tensors(fn: dict, dm: _Dims, tdims) -> None:
    """Per tensor of ``fn``: ``symbols`` (the mapped symbols of its leading dimensions),
    ``bound_shape`` (its slice at the bounds), its shape and type with the dynamic
    dimensions -1 / ``?``, and ``dynamic_dims`` (per dimension the index of the entry
    parameter giving its extent, -1 for a static one; None for a static tensor)."""
    index = {(a, d): k for k, (a, d, _kind, _s) in enumerate(dm.dims)}
    nargs = len(fn["args"])
    for k, (t, td) in enumerate(zip(fn["args"] + fn["results"], tdims)):
        t["symbols"] = [x[1] for x in td if x and x[0] == "s"]
        t["bound_shape"] = list(t["shape"])
        if any(td):
            t["shape"] = [-1 if x else n for n, x in zip(t["shape"], td)]
            t["type"] = "tensor<" + "".join(("?" if x < 0 else str(x)) + "x" for x in t["shape"]) + t["type_name"] + ">"
        if not any(td):
            t["dynamic_dims"] = None
        elif k < nargs:
            t["dynamic_dims"] = [index.get((k, d), -1) for d in range(t["rank"])]
        else:
            t["dynamic_dims"] = [dm.rep[x] if x else -1 for x in td]


def _extent(dm: _Dims, td) -> str:
    """C product of a tensor's dynamic extents ('' when it has none)."""
    return " * ".join(dm.names[dm.rep[x]] for x in td if x)


def _dynamic_params(fn: dict, dm: _Dims, tdims):
    """(parameters, parameter names, arguments of the call from the IREE-style entry, NULL
    checks of the tensors) of the public entry: each argument's extents follow it, each
    dynamic result's shape array follows it; hidden extent arguments are left out."""
    nargs, nres = len(fn["args"]), len(fn["results"])
    params, names = fn["params"], fn["param_names"]
    new_params: List[str] = []
    new_names: List[str] = []
    checks: List[str] = []
    call_args: List[str] = []
    for i in range(nargs):
        if i in dm.hidden:
            continue
        new_params.append(params[i])
        new_names.append(names[i])
        call_args.append(fn["call_args"][i])
        for k, (a, _d, _kind, _s) in enumerate(dm.dims):
            if a == i:
                new_params.append(f"int64_t {dm.names[k]}")
                new_names.append(dm.names[k])
                call_args.append(f"dims[{k}]")
        extent = _extent(dm, tdims[i])
        if fn["args"][i]["byte_size"] > 0:
            checks.append(f"({names[i]} == NULL && {extent} != 0)" if extent else f"{names[i]} == NULL")
    for j in range(nres):
        t = fn["results"][j]
        new_params.append(params[nargs + j])
        new_names.append(names[nargs + j])
        call_args.append(fn["call_args"][nargs + j])
        extent = _extent(dm, tdims[nargs + j])
        if extent:
            new_params.append(f"int64_t *result{j}_shape")
            new_names.append(f"result{j}_shape")
            call_args.append("NULL")
        if t["byte_size"] > 0:
            checks.append(f"({names[nargs + j]} == NULL && {extent} != 0)" if extent else f"{names[nargs + j]} == NULL")
    new_params += params[nargs + nres:]
    new_names += names[nargs + nres:]
    call_args += fn["call_args"][nargs + nres:]
    return new_params, new_names, call_args, checks


def _staged_copy(dm: _Dims, t: dict, td, stage: str, user: str, into_stage: bool, ind: str) -> List[str]:
    """C lines copying one slice of tensor ``t`` between its dense user buffer at ``user``
    (a byte pointer expression) and the bound-shaped staging buffer ``stage``: rows of the
    dimensions after the last padded one are contiguous in both, so one ``memcpy`` each."""
    nm = len(t["symbols"])
    shape = t["bound_shape"][nm:]
    dyn = td[nm:]
    esize = t["byte_size"] // max(t["element_count"], 1)
    last = max(d for d, x in enumerate(dyn) if x)
    inner = 1
    for n in shape[last + 1:]:
        inner *= n
    lines: List[str] = []
    if into_stage:
        lines.append(ind + f"memset({stage}, 0, {t['byte_size']});")
    dst_terms, src_terms = [], []
    for d in range(last + 1):
        size = dm.value(*dyn[d]) if dyn[d] else str(shape[d])
        lines.append(ind + "  " * d + f"for (int64_t c{d} = 0; c{d} < {size}; ++c{d}) {{")
        bound_stride = 1
        for n in shape[d + 1:]:
            bound_stride *= n
        actual = [dm.value(*x) if x else str(n) for n, x in zip(shape[d + 1:], dyn[d + 1:]) if x or n != 1]
        dst_terms.append(f"c{d} * {bound_stride}" if bound_stride != 1 else f"c{d}")
        src_terms.append(f"c{d} * " + " * ".join(actual) if actual else f"c{d}")
    dst = f"{stage} + ({' + '.join(dst_terms)}) * {esize}"
    src = f"{user} + ({' + '.join(src_terms)}) * {esize}"
    a, b = (dst, src) if into_stage else (src, dst)
    lines.append(ind + "  " * (last + 1) + f"memcpy({a}, {b}, {inner * esize});")
    for d in reversed(range(last + 1)):
        lines.append(ind + "  " * d + "}")
    return lines


def _entry_lines(fn: dict, dm: _Dims, tdims, staging_offset: int) -> List[str]:
    """The C lines of the entry's body after its checks: the symbols' values, the result
    shapes it fills, the staging buffers, and the loop nest calling ``<c_name>_impl``."""
    nargs = len(fn["args"])
    names = fn["param_names"]
    ptypes = fn["param_types"]
    nsym = len(dm.dd["symbols"])
    lines = [f"const int64_t {dm.value(kind, s)} = {dm.names[k]};" for (kind, s), k in
             sorted(dm.rep.items(), key=lambda kv: (kv[0][0] != "s", kv[0][1]))]
    for s, i in enumerate(dm.pd["extents"]):
        if i >= 0:
            lines.append(f"const int32_t extent{s} = (int32_t){dm.value('p', s)};")
    for j, t in enumerate(fn["results"]):
        td = tdims[nargs + j]
        if any(td):
            sizes = [dm.value(*x) if x else str(n) for n, x in zip(t["bound_shape"], td)]
            fill = " ".join(f"result{j}_shape[{d}] = {x};" for d, x in enumerate(sizes))
            lines.append(f"if (result{j}_shape != NULL) {{ {fill} }}")
    staged = [k for k, td in enumerate(tdims) if any(x and x[0] == "p" for x in td)]
    offset = staging_offset
    stage: Dict[int, str] = {}
    workspace = fn["impl_args"][-1]
    for k in staged:
        stage[k] = f"stage{k}"
        lines.append(f"uint8_t *const stage{k} = (uint8_t *){workspace} + {offset};")
        offset += _align((fn["args"] + fn["results"])[k]["byte_size"])
    for s in range(nsym):
        lines.append("  " * s + f"for (int64_t i{s} = 0; i{s} < {dm.value('s', s)}; ++i{s}) {{")
    ind = "  " * nsym
    impl: List[str] = []
    user: Dict[int, str] = {}
    hidden_sym = {i: s for s, i in enumerate(dm.pd["extents"]) if i >= 0}
    for k, (t, td) in enumerate(zip(fn["args"] + fn["results"], tdims)):
        if k in hidden_sym:
            impl.append(f"({ptypes[k]})&extent{hidden_sym[k]}")
            continue
        syms = t["symbols"]
        ptr = names[k]
        if syms:
            index = f"i{syms[0]}"
            for s in syms[1:]:
                index = f"({index}) * {dm.value('s', s)} + i{s}"
            count = [dm.value(*x) if x else str(n) for n, x in zip(t["bound_shape"][len(syms):], td[len(syms):])
                     if x or n != 1]
            if k in stage:
                scale = f" * {' * '.join(count)}" if count else ""
            else:
                scale = f" * {t['element_count']}" if t["element_count"] != 1 else ""
            ptr = f"{names[k]} + ({index}){scale}"
        if k in stage:
            user[k] = ptr
            impl.append(f"({ptypes[k]}){stage[k]}")
        else:
            impl.append(ptr)
    impl += fn["impl_args"][len(impl):]
    for k in staged:
        if k < nargs:
            lines += _staged_copy(dm, fn["args"][k], tdims[k], stage[k],
                                  f"(const uint8_t *)({user[k]})", True, ind)
    lines.append(ind + f"ireec_status_t status = {fn['c_name']}_impl({', '.join(impl)});")
    lines.append(ind + "if (status != IREEC_STATUS_OK) {")
    lines.append(ind + "  return status;")
    lines.append(ind + "}")
    for k in staged:
        if k >= nargs:
            lines += _staged_copy(dm, fn["results"][k - nargs], tdims[k], stage[k],
                                  f"(uint8_t *)({user[k]})", False, ind)
    for s in reversed(range(nsym)):
        lines.append("  " * s + "}")
    return lines
