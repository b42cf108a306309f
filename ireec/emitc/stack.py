"""Stack the generated C takes: the bytes of the C types it declares locals of, of each
``emitc.func``'s local variables, and the frame allowed per C function on a call path.

Read by the stack bound of ``ireec-check-memory-budgets`` (ireec/passes/vm/
check_memory_budgets.py), by the GPU distribution (shared-memory sizing) and by the
generated header's comment (:data:`FRAME_BYTES`).
"""
from __future__ import annotations

from ..ir.core import Operation

#: Bytes allowed per C function frame on a call path besides its local arrays: callee-saved
#: registers, return address, spills and outgoing arguments. Measured with GCC 12
#: -fstack-usage on the models of ../shared/models and the seeds, a workgroup function and its
#: launch function take beyond their arrays at most 256 bytes on a Cortex-M4 (-O2; 232 at
#: -Os) and 528 on x86-64 (-O3, baseline ISA), within the 2 x 384 allowed. The bound does not
#: cover the x86-64 AVX2 clones (IREEC_KERNEL_CLONES), whose vectorized code may spill
#: kilobytes; define IREEC_NO_TARGET_CLONES where the stack is tight.
FRAME_BYTES = 384

#: Bytes of the C scalar and storage types the generated code declares locals of.
C_TYPE_BYTES = {"float": 4, "double": 8, "int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2,
                "int32_t": 4, "uint32_t": 4, "int64_t": 8, "uint64_t": 8, "bool": 1, "_Bool": 1,
                "int": 4, "size_t": 8, "ptrdiff_t": 8, "intptr_t": 8, "uintptr_t": 8}


def c_type_bytes(name: str) -> int:
    """Bytes of a C type the generated code uses (``float``, ``int64_t``, pointers: 8)."""
    name = name.replace("const", "").strip()
    if name.endswith("*"):
        return 8
    return C_TYPE_BYTES.get(name, 8)


def emitc_locals_bytes(f: Operation) -> int:
    """Bytes of the local variables ``emitc.func`` ``f`` declares: arrays (``array_size``
    elements of their C element type; ``static const`` arrays with initial values live in
    read-only data and do not count) and mutable scalars (8 bytes each)."""
    total = 0
    for op in f.walk():
        if op.name != "emitc.variable":
            continue
        if "init_values" in op.attributes:
            continue
        if "array_size" in op.attributes:
            total += int(op.attributes["array_size"].value) * c_type_bytes(op.attributes["element"].value)
        else:
            total += 8
    return total
