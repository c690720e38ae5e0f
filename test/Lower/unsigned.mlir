// Unsigned tensors (torch.uint8) are refused by name, at the first op that
// has one, before any rewrite (arith takes signless integers only: this
// used to fail with "'arith.addi' op operand #0 must be signless-integer-like").
// RUN: magi-opt %s --magi-lower-to-linalg -verify-diagnostics -split-input-file

func.func @add(%x: tensor<4xui8>, %y: tensor<4xui8>) -> tensor<4xui8> {
  // expected-error @+1 {{'magi.add' op has an unsigned integer tensor ('tensor<4xui8>'): the lowering does not support unsigned dtypes (torch.uint8) yet}}
  %z = magi.add %x, %y : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %z : tensor<4xui8>
}

// -----

func.func @cast(%x: tensor<4xf32>) -> tensor<4xui8> {
  %y = magi.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{'magi.to_copy' op has an unsigned integer tensor ('tensor<4xui8>')}}
  %z = magi.to_copy %y {dtype = ui8} : (tensor<4xf32>) -> tensor<4xui8>
  return %z : tensor<4xui8>
}
