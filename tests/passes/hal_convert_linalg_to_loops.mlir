// RUN: ireec opt %s --pass-pipeline=convert-linalg-to-loops | filecheck %s

// Input: kernels as iree-codegen-convert-conv-to-im2col leaves them (their tiles built by
// iree-codegen-tile-and-distribute-to-workgroups). Each workgroup of the 1-D elementwise
// kernel covers min(4096, 100000 - id * 4096) elements in one scf.for, indexing the bindings
// at offset + iv; the 2-D reduction becomes the init loop, then the row loop around the
// contiguous inner loop. No linalg op and no ireec.workgroup_tile marker is left.
// CHECK-LABEL:   func.func @ew_dispatch_0_elementwise_100000_f32()
// CHECK:           hal.interface.workgroup.id
// CHECK:           %[[TILE:[0-9]+]] = arith.constant 4096 : index
// CHECK:           %[[OFF:[0-9]+]] = arith.muli %{{[0-9]+}}, %[[TILE]] : index
// CHECK:           %[[N:[0-9]+]] = arith.minsi
// CHECK:           scf.for %[[I:.+]] = %{{[0-9]+}} to %[[N]] step
// CHECK-NEXT:        %[[G:[0-9]+]] = arith.addi %[[OFF]], %[[I]] : index
// CHECK-NEXT:        memref.load %0[%[[G]]]
// CHECK-NEXT:        math.exp
// CHECK-NEXT:        memref.store
// CHECK-NOT:       linalg.
// CHECK-LABEL:   func.func @rowsum_dispatch_0_reduction_300x64_f32()
// CHECK:           scf.for
// CHECK:             memref.store
// CHECK:           scf.for
// CHECK-NEXT:        scf.for
// CHECK:               memref.load
// CHECK:               memref.load
// CHECK:               arith.addf
// CHECK:               memref.store
// CHECK-NOT:       linalg.
// CHECK-NOT:       ireec.workgroup_tile
module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "ew_dispatch_0_elementwise_100000_f32", ordinal = 0 : index, bindings = 2 : index, workgroup_count = array<i64: 25, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @ew_dispatch_0_elementwise_100000_f32() attributes {ireec.distribution = array<i64: 100000, 4096>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<100000xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "None"} : () -> (memref<100000xf32>)
          %2 = "hal.interface.workgroup.id"() {dimension = 0 : index, ireec.workgroup_tile} : () -> (index)
          %3 = arith.constant {ireec.workgroup_tile} 4096 : index
          %4 = arith.muli %2, %3 {ireec.workgroup_tile} : index
          %5 = arith.constant {ireec.workgroup_tile} 100000 : index
          %6 = arith.subi %5, %4 {ireec.workgroup_tile} : index
          %7 = arith.minsi %3, %6 {ireec.workgroup_tile} : index
          linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : memref<100000xf32>) outs(%1 : memref<100000xf32>) attrs =  {ireec.distribute = array<i64: 0>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[4096]]>} {
          ^bb0(%arg0: f32, %arg1: f32):
            %8 = math.exp %arg0 : f32
            linalg.yield %8 : f32
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "ew_dispatch_0", sym_visibility = "private"} : () -> ()
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "rowsum_dispatch_0_reduction_300x64_f32", ordinal = 0 : index, bindings = 2 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @rowsum_dispatch_0_reduction_300x64_f32() attributes {ireec.distribution = array<i64: 300, 300>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<300x64xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "None"} : () -> (memref<300xf32>)
          %2 = arith.constant 0.0e+00 : f32
          %3 = arith.constant {ireec.workgroup_tile} 0 : index
          %4 = arith.constant {ireec.workgroup_tile} 300 : index
          linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%2 : f32) outs(%1 : memref<300xf32>) attrs =  {ireec.distribute = array<i64: 0>} {
          ^bb0(%arg0: f32, %arg1: f32):
            linalg.yield %arg0 : f32
          }
          linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%0 : memref<300x64xf32>) outs(%1 : memref<300xf32>) attrs =  {ireec.distribute = array<i64: 0>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[300, 0]]>} {
          ^bb0(%arg2: f32, %arg3: f32):
            %5 = arith.addf %arg2, %arg3 : f32
            linalg.yield %5 : f32
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "rowsum_dispatch_0", sym_visibility = "private"} : () -> ()
}
