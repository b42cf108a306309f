// RUN: ireec opt %s --pass-pipeline=iree-codegen-tile-and-distribute-to-workgroups | filecheck %s

// Input: kernels as ireec-fold-ukernel-accumulator-inits leaves them. The 1-D elementwise
// kernel is cut into 25 tiles of 4096 (ireec.distribution = extent, tile): after its bindings
// the workgroup's offset is workgroup.id * 4096 and its size min(4096, 100000 - offset), the
// last tile being partial. The 300-row reduction is one tile: offset 0, size 300, no
// workgroup id. Every op built carries ireec.workgroup_tile; the generics are unchanged.
// CHECK-LABEL:   func.func @ew_dispatch_0_elementwise_100000_f32()
// CHECK:           "hal.interface.binding.subspan"() {binding = 1
// CHECK-NEXT:      %[[ID:[0-9]+]] = "hal.interface.workgroup.id"() {dimension = 0 : index, ireec.workgroup_tile} : () -> (index)
// CHECK-NEXT:      %[[TILE:[0-9]+]] = arith.constant {ireec.workgroup_tile} 4096 : index
// CHECK-NEXT:      %[[OFF:[0-9]+]] = arith.muli %[[ID]], %[[TILE]] {ireec.workgroup_tile} : index
// CHECK-NEXT:      %[[EXT:[0-9]+]] = arith.constant {ireec.workgroup_tile} 100000 : index
// CHECK-NEXT:      %[[REST:[0-9]+]] = arith.subi %[[EXT]], %[[OFF]] {ireec.workgroup_tile} : index
// CHECK-NEXT:      arith.minsi %[[TILE]], %[[REST]] {ireec.workgroup_tile} : index
// CHECK-NEXT:      linalg.generic
// CHECK-LABEL:   func.func @rowsum_dispatch_0_reduction_300x64_f32()
// CHECK-NOT:       hal.interface.workgroup.id
// CHECK:           arith.constant 0.0e+00 : f32
// CHECK-NEXT:      arith.constant {ireec.workgroup_tile} 0 : index
// CHECK-NEXT:      arith.constant {ireec.workgroup_tile} 300 : index
// CHECK-NEXT:      linalg.generic
module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "ew_dispatch_0_elementwise_100000_f32", ordinal = 0 : index, bindings = 2 : index, workgroup_count = array<i64: 25, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @ew_dispatch_0_elementwise_100000_f32() attributes {ireec.distribution = array<i64: 100000, 4096>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<100000xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "None"} : () -> (memref<100000xf32>)
          linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : memref<100000xf32>) outs(%1 : memref<100000xf32>) attrs =  {ireec.distribute = array<i64: 0>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[4096]]>} {
          ^bb0(%arg0: f32, %arg1: f32):
            %2 = math.exp %arg0 : f32
            linalg.yield %2 : f32
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
          linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%2 : f32) outs(%1 : memref<300xf32>) attrs =  {ireec.distribute = array<i64: 0>} {
          ^bb0(%arg0: f32, %arg1: f32):
            linalg.yield %arg0 : f32
          }
          linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%0 : memref<300x64xf32>) outs(%1 : memref<300xf32>) attrs =  {ireec.distribute = array<i64: 0>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[300, 0]]>} {
          ^bb0(%arg2: f32, %arg3: f32):
            %3 = arith.addf %arg2, %arg3 : f32
            linalg.yield %3 : f32
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "rowsum_dispatch_0", sym_visibility = "private"} : () -> ()
}
