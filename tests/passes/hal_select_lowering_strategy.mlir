// RUN: ireec opt %s --target=openmp --pass-pipeline=iree-abi-wrap-entry-points,iree-dispatch-creation-form-dispatch-regions,iree-flow-outline-dispatch-regions,iree-stream-schedule-allocation,iree-hal-materialize-interfaces,linalg-generalize-named-ops,iree-llvmcpu-select-lowering-strategy | filecheck %s

// Tile sizes per kernel, and workgroup count = ceil(extent / tile) per distributed dimension:
// 100000 elements in tiles of 4096 are 25 workgroups; the f32 256x200 matmul calls the sgemm
// micro-kernel: both dims are below twice its 256 tile, so for openmp threads each is split in two (128 rows,
// 104 columns: 2x2 workgroups), the reduction is not tiled (0); the second level is the
// micro-kernel's cache blocking MC, NC, KC (no larger than the tile).
// CHECK:       hal.executable.export
// CHECK-SAME:    sym_name = "ew_dispatch_0_elementwise_100000_f32"
// CHECK-SAME:    workgroup_count = array<i64: 25, 1, 1>
// CHECK:       func.func @ew_dispatch_0_elementwise_100000_f32()
// CHECK-SAME:    translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>
// CHECK:         linalg.generic
// CHECK-SAME:      lowering_config = #iree_codegen.lowering_config<tile_sizes = {{\[\[}}4096]]>
// CHECK:       hal.executable.export
// CHECK-SAME:    sym_name = "mm_dispatch_0_matmul_256x200x128_f32"
// CHECK-SAME:    workgroup_count = array<i64: 2, 2, 1>
// CHECK:       func.func @mm_dispatch_0_matmul_256x200x128_f32()
// CHECK:         linalg.generic{{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_sgemm", memref>
// CHECK-SAME:      ireec.ukernel_blocking = array<i64: 64, 104, 128>
// CHECK-SAME:      lowering_config = #iree_codegen.lowering_config<tile_sizes = {{\[\[}}128, 104, 0], [64, 104, 128]]>
// 24 rows would split as 16 + 8 (a static schedule gives one thread both 16-row tiles) while
// the 256 columns split evenly: the rows stay whole, two workgroups of 24x128.
// CHECK:       hal.executable.export
// CHECK-SAME:    sym_name = "mm24_dispatch_0_matmul_24x256x64_f32"
// CHECK-SAME:    workgroup_count = array<i64: 2, 1, 1>
// CHECK:         lowering_config = #iree_codegen.lowering_config<tile_sizes = {{\[\[}}24, 128, 0]
func.func @ew(%a: tensor<100000xf32>) -> tensor<100000xf32> {
  %e = tensor.empty() : tensor<100000xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<100000xf32>) outs(%e : tensor<100000xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.exp %x : f32
    linalg.yield %s : f32
  } -> tensor<100000xf32>
  return %0 : tensor<100000xf32>
}
func.func @mm(%x: tensor<256x128xf32>, %w: tensor<128x200xf32>) -> tensor<256x200xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x200xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x200xf32>) -> tensor<256x200xf32>
  %m = linalg.matmul ins(%x, %w : tensor<256x128xf32>, tensor<128x200xf32>) outs(%f : tensor<256x200xf32>) -> tensor<256x200xf32>
  return %m : tensor<256x200xf32>
}
func.func @mm24(%x: tensor<24x64xf32>, %w: tensor<64x256xf32>) -> tensor<24x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<24x256xf32>) -> tensor<24x256xf32>
  %m = linalg.matmul ins(%x, %w : tensor<24x64xf32>, tensor<64x256xf32>) outs(%f : tensor<24x256xf32>) -> tensor<24x256xf32>
  return %m : tensor<24x256xf32>
}
