/* ireec_ukernel.h — the CPU micro-kernels the generated kernels call, shipped with every
 * module that calls one (with the headers below) and included by its kernels file. One header
 * per family, each usable on its own:
 *   ireec_ukernel_common.h  vector-extension detection, entry-point linkage (inline, or
 *                           prebuilt by `ireec build`), the epilogue flags and code;
 *   ireec_ukernel_sgemm.h   ireec_uk_sgemm / ireec_uk_sgemm_fused (contractions);
 *   ireec_ukernel_dwconv.h  ireec_uk_dwconv / ireec_uk_dwconv_fused (depthwise convolutions);
 *   ireec_ukernel_igemm.h   ireec_uk_igemm (int8 x int8 -> int32 contractions, zero points);
 *   ireec_ukernel_conv.h    ireec_uk_conv (NCHW convolutions of unit stride, image read in place).
 * Plain C99 with GCC/Clang vector extensions behind a scalar fallback. */
#ifndef IREEC_UKERNEL_H_
#define IREEC_UKERNEL_H_

#include "ireec_ukernel_sgemm.h"
#include "ireec_ukernel_dwconv.h"
#include "ireec_ukernel_igemm.h"
#include "ireec_ukernel_conv.h"

#endif /* IREEC_UKERNEL_H_ */
