"""Stack the generated C takes: the bytes of the C types it declares locals of, of each
``emitc.func``'s local variables, and the frame allowed per C function on a call path.

Read by the stack bound of ``ireec-check-memory-budgets`` (ireec/passes/vm/
check_memory_budgets.py), by the GPU distribution (shared-memory sizing) and by the
generated header's comment (:data:`FRAME_BYTES`).
"""
from __future__ import annotations

from ..ir.core import Operation
from .ctypes import C_TYPE_BYTES, c_type_bytes  # noqa: F401  (re-exported for the stack bound's readers)

#: Bytes allowed per C function frame on a call path besides its local arrays: callee-saved
#: registers, return address, spills and outgoing arguments. Measured with GCC 12
#: -fstack-usage on the models of ../shared/models and the seeds, a workgroup function and its
#: launch function take beyond their arrays at most 256 bytes on a Cortex-M4 (-O2; 232 at
#: -Os) and 528 on x86-64 (-O3, baseline ISA), within the 2 x 384 allowed. The bound does not
#: cover the x86-64 AVX2 clones (IREEC_KERNEL_CLONES), whose vectorized code may spill
#: kilobytes; define IREEC_NO_TARGET_CLONES where the stack is tight.
FRAME_BYTES = 384

#: Bytes a local array may take beyond its elements: IREEC_LOCAL_ALIGN (ireec_runtime.h)
#: aligns it to 64 bytes on x86-64 GCC, padding before it and realigning the frame.
LOCAL_ALIGN_BYTES = 64

def emitc_locals_bytes(f: Operation) -> int:
    """Bytes of the local variables ``emitc.func`` ``f`` declares: arrays (``array_size``
    elements of their C element type plus :data:`LOCAL_ALIGN_BYTES` of alignment; ``static
    const`` arrays with initial values live in read-only data and do not count) and mutable
    scalars (8 bytes each)."""
    total = 0
    for op in f.walk():
        if op.name != "emitc.variable":
            continue
        if "init_values" in op.attributes:
            continue
        if "array_size" in op.attributes:
            total += (int(op.attributes["array_size"].value) * c_type_bytes(op.attributes["element"].value)
                      + LOCAL_ALIGN_BYTES)
        else:
            total += 8
    return total
