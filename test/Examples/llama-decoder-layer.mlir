// The bundled example parses, verifies, and round-trips through text and
// bytecode unchanged.
// RUN: magi-opt %magi_src_root/examples/llama_decoder_layer.mlir --verify-roundtrip | FileCheck %s
// RUN: magi-opt %magi_src_root/examples/llama_decoder_layer.mlir -emit-bytecode | magi-opt | FileCheck %s
// RUN: magi-opt %magi_src_root/examples/llama_decoder_layer.mlir > %t.mlir
// RUN: magi-opt %t.mlir > %t2.mlir
// RUN: diff %t.mlir %t2.mlir

// CHECK-LABEL: func.func @llama_decoder_layer(
// CHECK-SAME:    tensor<1x?x128xbf16> {magi.input_kind = "user_input", magi.name = "hidden_states"}
// CHECK:         %[[S0:.*]] = magi.symbolic_int "s0" min 2 max 4096
// CHECK:         magi.bind_symbolic_shape %{{.*}}, [%[[S0]]], #{{.*}} : tensor<1x?x128xbf16>
// CHECK:         magi.rsqrt
// CHECK:         magi.scaled_dot_product_efficient_attention {{.*}}is_causal = true
// CHECK-SAME:    -> (tensor<1x4x?x32xbf16>, tensor<1x4x0xf32>, tensor<i64>, tensor<i64>)
// CHECK:         magi.rsqrt
// CHECK:         magi.sigmoid
// CHECK:         return %{{.*}} : tensor<1x?x128xbf16>
