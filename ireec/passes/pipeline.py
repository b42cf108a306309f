"""The pipeline: phases named like iree-compile's ``--compile-to`` values, each a flat
list of passes with the reason it runs there. ``--compile-to``, ``--compile-from``,
``--dump-compilation-phases-to`` and ``--mlir-print-ir-after-all`` all read this table.
"""
from __future__ import annotations

from typing import List, Tuple, Type

from .abi.wrap_entry_points import WrapEntryPointsPass
from .common.linalg_generalize_named_ops import LinalgGeneralizeNamedOpsPass
from .flow.bubble_up_expand_shapes import BubbleUpExpandShapesPass
from .flow.collapse_dimensions import CollapseDimensionsPass
from .flow.consteval_jit_globals import ConstEvalJitGlobalsPass
from .flow.convert_1x1_filter_conv2d_to_matmul import Convert1X1FilterConv2DToMatmulPass
from .flow.convert_conv_filter_to_channels_last import ConvertConvFilterToChannelsLastPass
from .flow.convert_conv_to_channels_last import ConvertConvToChannelsLastPass
from .flow.decompose_transposed_convolution import DecomposeTransposedConvolutionPass
from .flow.propagate_linalg_transpose import PropagateLinalgTransposePass
from .flow.deduplicate_executables import DeduplicateExecutablesPass
from .flow.elementwise_op_fusion import ElementwiseOpFusionPass
from .flow.erase_unused_operands_and_results import EraseUnusedLinalgOperandsPass
from .flow.fold_channel_affine_into_contractions import FoldChannelAffineIntoContractionsPass
from .flow.fold_round_half_even import FoldRoundHalfEvenPass
from .flow.form_dispatch_regions import FormDispatchRegionsPass
from .flow.fuse_qdq_contractions import FuseQDQContractionsPass
from .flow.outline_dispatch_regions import OutlineDispatchRegionsPass
from .hal.bufferize import BufferizePass
from .hal.convert_conv_to_im2col import ConvertConvToIm2colPass
from .hal.convert_linalg_to_loops import ConvertLinalgToLoopsPass
from .hal.cpu_lower_to_ukernels import CPULowerToUKernelsPass
from .hal.fold_narrow_integer_extensions import FoldNarrowIntegerExtensionsPass
from .hal.fold_ukernel_accumulator_inits import FoldUKernelAccumulatorInitsPass
from .hal.materialize_interfaces import MaterializeInterfacesPass
from .hal.math_algebraic_simplification import MathAlgebraicSimplificationPass
from .hal.math_transform import MathTransformPass
from .hal.promote_narrow_operands import PromoteNarrowOperandsPass
from .hal.select_lowering_strategy import SelectLoweringStrategyPass
from .hal.tile_and_distribute_to_workgroups import TileAndDistributeToWorkgroupsPass
from .hal.gpu_select_lowering_strategy import LLVMGPUSelectLoweringStrategyPass
from .hal.gpu_lower_to_ukernels import GPULowerToUKernelsPass
from .input.canonicalize import CanonicalizePass
from .input.convert_check_to_results import ConvertCheckToResultsPass
from .input.convert_elementwise_to_linalg import ConvertElementwiseToLinalgPass
from .input.convert_globals import ConvertGlobalsPass
from .input.convert_host_scalars_to_tensors import ConvertHostScalarsToTensorsPass
from .input.convert_scf_to_cf import ConvertScfToCfPass
from .input.convert_splat_constants_to_fills import ConvertSplatConstantsToFillsPass
from .input.convert_tensor_bitcasts import ConvertTensorBitcastsPass
from .input.convert_stablehlo_to_linalg import ConvertStableHloToLinalgPass
from .input.convert_tosa_to_linalg import ConvertTosaToLinalgPass
from .input.decompose_pack_unpack import DecomposePackUnPackPass
from .input.decompose_softmax import DecomposeSoftmaxPass
from .input.decompose_tensor_concat import DecomposeTensorConcatPass
from .input.drop_compiler_hints import DropCompilerHintsPass
from .input.inline import InlinePass
from .input.legalize_chlo import LegalizeChloPass
from .input.map_dynamic_dims import MapDynamicDimsPass
from .input.pad_dynamic_dims_to_bounds import PadDynamicDimsToBoundsPass
from .input.stablehlo_canonicalize_dynamism import StableHloCanonicalizeDynamismPass
from .input.stablehlo_refine_shapes import StableHloRefineShapesPass
from .input.unroll_slicing_host_loops import UnrollSlicingHostLoopsPass
from .pass_base import Pass
from .stream.schedule_allocation import ScheduleAllocationPass
from .vm.check_memory_budgets import CheckMemoryBudgetsPass
from .vm.convert_to_emitc import ConvertToEmitCPass
from .vm.form_openmp_host_regions import FormOpenMPHostRegionsPass
from .vm.gpu_distribute import GPUDistributePass
from .vm.loop_invariant_code_motion import LoopInvariantCodeMotionPass
from .vm.mark_independent_loops import MarkIndependentLoopsPass
from .vm.reassociate_fp_reductions import ReassociateFpReductionsPass
from .vm.remove_dead_values import RemoveDeadValuesPass
from .vm.remove_single_iteration_loop import RemoveSingleIterationLoopPass

PHASES = ("input", "abi", "flow", "stream", "hal", "vm", "end")

PIPELINE: List[Tuple[str, Type[Pass], str]] = [
    # input: everything becomes linalg/tensor/arith on tensors.
    ("input", InlinePass, "calls become the callee's body, so each public function is one straight program"),
    ("input", DropCompilerHintsPass, "unfoldable constants, barriers and dynamic constants become plain values"),
    ("input", PadDynamicDimsToBoundsPass, "dynamic dimensions the slice map cannot handle (a sequence length an attention reduces over) are padded to their upper bound, reductions over them masked"),
    ("input", MapDynamicDimsPass, "dynamic dimensions of public functions become 1: one static slice program the entry point loops over"),
    ("input", ConvertGlobalsPass, "ml_program globals become util globals; never-stored globals become constants"),
    ("input", ConvertCheckToResultsPass, "check.expect_* operands become results that `ireec check` compares"),
    ("input", LegalizeChloPass, "CHLO's broadcasting and composite ops become plain StableHLO"),
    ("input", StableHloCanonicalizeDynamismPass, "dynamic StableHLO ops whose shape operands are constants become static ops"),
    ("input", StableHloRefineShapesPass, "StableHLO ops whose operands are static values behind dynamic types get static result types"),
    ("input", ConvertStableHloToLinalgPass, "StableHLO becomes linalg/tensor/arith (scf for while/if/case)"),
    ("input", ConvertTosaToLinalgPass, "TOSA becomes linalg/tensor/arith (scf for while_loop/cond_if)"),
    ("input", ConvertElementwiseToLinalgPass, "tensor-level arith/math become linalg.generic, so every computation is a structured op"),
    ("input", UnrollSlicingHostLoopsPass, "host loops with constant bounds that slice tensors at offsets computed from the induction variable (a recurrent network's ONNX export) are unrolled, so every slice has constant offsets"),
    ("input", CanonicalizePass, "fold casts and refine dynamic shapes the constants make static"),
    ("input", DecomposePackUnPackPass, "pack/unpack become generic copies with (un)tiling maps (shapes are static by now)"),
    ("input", DecomposeTensorConcatPass, "concat becomes empty + insert_slice, which dispatches already handle"),
    ("input", DecomposeSoftmaxPass, "softmax becomes max/exp/sum/div generics the backend lowers like any reduction"),
    ("input", ConvertTensorBitcastsPass, "bitcasts to/from packed i2/i4/f4 tensors become unpack/pack generics (ireec keeps one element per byte)"),
    ("input", ConvertSplatConstantsToFillsPass, "big splat constants become fills, not megabytes of pooled data"),
    ("input", ConvertScfToCfPass, "host loops and conditionals become blocks and branches the host C program jumps between"),
    ("input", ConvertHostScalarsToTensorsPass, "scalars the host computes reach dispatches as rank-0 tensors (IREE: push constants)"),
    # abi: the public calling convention.
    ("abi", WrapEntryPointsPass, "public functions take/return !hal.buffer_view; tensors cross via hal.tensor.import/export"),
    # flow: what runs where.
    ("flow", EraseUnusedLinalgOperandsPass, "generic results nobody uses (the index of torch's max.dim) go with their inits and the payload ops only they need, and inputs the payload never reads go, as IREE's GlobalOptimization does first"),
    ("flow", FuseQDQContractionsPass, "f32 convolutions and matmuls of dequantized 8-bit tensors (a QDQ export) become 8-bit integer contractions (ireec_uk_igemm) and an f32 scaling, as ONNX Runtime's QDQ fusion makes QLinearConv; the bias joins the i32 sum when its scale is the product of the operands'"),
    ("flow", FoldChannelAffineIntoContractionsPass, "per-channel scales and shifts after a convolution or matmul with a constant filter (an inference BatchNorm) go into the filter and a bias start, as TVM's FoldScaleAxis and ONNX Runtime's Conv+BatchNorm fusion do; constant evaluation folds both next"),
    ("flow", DecomposeTransposedConvolutionPass, "a convolution over a zero-dilated image (a transposed convolution: ConvTranspose2d, lhs_dilation) becomes one convolution of the image per output phase with its sub-filter, inserted with strides: no multiplications by the inserted zeros"),
    ("flow", ConvertConvToChannelsLastPass, "CPU targets: NCHW depthwise convolutions, and the 1x1 convolutions channels-last values reach, become their NHWC forms between transposes of the image, filter and init in and of the result out"),
    ("flow", PropagateLinalgTransposePass, "transposes sink through elementwise ops and pads until they cancel against the next convolution's, so a network runs channels-last between its first and last convolution"),
    ("flow", FoldChannelAffineIntoContractionsPass, "again, for the per-channel ops that the transposes just sunk out of the way now follow their convolution directly (TOSA's NHWC convolutions between transposes to and from an NCHW BatchNorm)"),
    ("flow", ConvertConvFilterToChannelsLastPass, "NCHW convolutions with few output pixels and a constant filter read it transposed to [c, kh, kw, f] (a transpose constant evaluation folds next), so their im2col GEMM has the pixels as rows and the many output channels as its vector columns"),
    ("flow", ConstEvalJitGlobalsPass, "ops reading only constants (weight transposes, reshapes, broadcasts, dequantisation) are evaluated into pooled constants first, as IREE's GlobalOptimization does before dispatch creation: once fused they would be recomputed in a dispatch on every call"),
    ("flow", BubbleUpExpandShapesPass, "an expand_shape of a slice becomes a slice of the expanded source, so the slice meets its consumer and is cloned into its dispatch"),
    ("flow", ElementwiseOpFusionPass, "elementwise producers are fused into their consumers, splat constants become scalars"),
    ("flow", FoldRoundHalfEvenPass, "round-half-to-even spelled out with floor, ceil, compares and a select (TOSA's quantize) becomes math.roundeven, and a roundeven of an already integral value goes"),
    ("flow", Convert1X1FilterConv2DToMatmulPass, "convolutions with a 1x1 window and unit strides lose their window loops and become matmul-like generics; after elementwise fusion, so no producer is recomputed inside them"),
    ("flow", FormDispatchRegionsPass, "roots (matmul, conv, reductions, then the rest) with their fusable consumers and cloned fills/empties become dispatch regions"),
    ("flow", CollapseDimensionsPass, "contiguous dims of the same kind in contraction and reduction regions (a 1x1 convolution's H and W, a global pool's H and W) merge into one, so one micro-kernel call covers the whole image and a reduction vectorizes over whole rows"),
    ("flow", OutlineDispatchRegionsPass, "dispatch regions become flow.executables called by flow.dispatch"),
    ("flow", DeduplicateExecutablesPass, "identical kernels are compiled once"),
    # stream: where every byte lives.
    ("stream", ScheduleAllocationPass, "static memory plan: inputs/results in caller buffers, transients in one arena, constants pooled"),
    # hal: kernels for the target.
    ("hal", MaterializeInterfacesPass, "executables get a target variant; kernel arguments become interface bindings"),
    ("hal", LinalgGeneralizeNamedOpsPass, "named linalg ops become linalg.generic so one lowering handles them all"),
    ("hal", SelectLoweringStrategyPass, "lowering config per kernel: distributed dims, tile sizes, workgroup count = ceil(extent / tile)"),
    ("hal", LLVMGPUSelectLoweringStrategyPass, "GPU targets: per dispatch kind (elementwise, reduction, contraction, other) the tile sizes, workgroup count = grid and workgroup size = block"),
    ("hal", BufferizePass, "tensors become memrefs, results written straight into their output bindings, intermediates in per-tile temporaries"),
    ("hal", GPULowerToUKernelsPass, "GPU targets: matmul roots (f32, f16, bf16) become calls of the shared-memory tiled device micro-kernel their config names"),
    ("hal", PromoteNarrowOperandsPass, "CPU targets: i1 masks read next to f32 data are widened once into an i32 stack copy, so the loops reading them vectorize at full width"),
    ("hal", FoldUKernelAccumulatorInitsPass, "CPU micro-kernel roots: the zero fill of their output before them goes (the call overwrites), a bias broadcast into it is marked as the call's start"),
    ("hal", TileAndDistributeToWorkgroupsPass, "each kernel computes at entry its workgroup's tile per distributed dim: offset = workgroup id * tile, size = min(tile, extent - offset)"),
    ("hal", CPULowerToUKernelsPass, "CPU targets: f32 contractions, int8 contractions (zero points) and depthwise convolutions marked for a micro-kernel become ireec_uk_sgemm / ireec_uk_igemm / ireec_uk_dwconv calls on the workgroup's tile, the f32 ones taking a bias/clamp consumer as epilogue"),
    ("hal", ConvertConvToIm2colPass, "CPU targets: convolutions marked ireec.im2col become, per chunk of output pixels, a copy of their patches into a stack array and one ireec_uk_sgemm (f32) or ireec_uk_igemm (int8, zero points) call over the whole window; NCHW f32 ones whose image can be read in place (unit stride) or split into phases (strided) one ireec_uk_conv call per tile, no patch copy"),
    ("hal", ConvertLinalgToLoopsPass, "linalg.generic on memrefs becomes scf.for loops over the workgroup's tile (innermost loop over contiguous memory; contractions register-blocked)"),
    ("hal", MathAlgebraicSimplificationPass, "powers with a small constant integer exponent (x^2, x^3, 1/x) become multiplications, not a scalar libm pow call per element"),
    ("hal", MathTransformPass, "f32 tanh and exp in kernels become branch-free polynomial approximations the C compiler vectorizes, not a scalar libm call per element"),
    ("hal", FoldNarrowIntegerExtensionsPass, "an extension of an i8 that a float conversion made (a quantize-dequantize pair) becomes the conversion to the wide type, so no narrow integer keeps the C compiler from vectorizing the f32 loop"),
    # vm: C statements as ops.
    ("vm", ConvertToEmitCPass, "host functions and kernels become emitc ops the C printer renders"),
    ("vm", RemoveSingleIterationLoopPass, "kernel loops that run once (unit dimensions of a tile) become their body"),
    ("vm", LoopInvariantCodeMotionPass, "expressions and loads a kernel loop does not change move before it"),
    ("vm", MarkIndependentLoopsPass, "innermost loops proved free of loop-carried dependences get ivdep (#pragma GCC ivdep)"),
    ("vm", ReassociateFpReductionsPass, "CPU targets: float reduction loops accumulate in a scalar under IREEC_SIMD_REDUCTION (omp simd), so the compiler may vectorize them with partial sums per lane"),
    ("vm", GPUDistributePass, "the target maps each workgroup onto its threads (GPU: block-stride loops) and sets the kernels' C specifiers"),
    ("vm", RemoveDeadValuesPass, "unused locals and write-only variables are erased, so the printed C has none"),
    ("vm", CheckMemoryBudgetsPass, "every call's stack bound goes on the IR and the workspace, stack and constant budgets are checked, once the locals are final"),
    ("vm", FormOpenMPHostRegionsPass, "openmp: a straight-line host function runs its dispatches in one parallel region (work-shared launches, barriers where byte ranges conflict)"),
]


def passes_for(phase: str) -> List[Tuple[Type[Pass], str]]:
    """The (pass class, reason) pairs of ``phase``, in pipeline order."""
    return [(cls, why) for p, cls, why in PIPELINE if p == phase]
