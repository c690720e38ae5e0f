// An integer pow of user inputs (for magi-compile: through PTX and ptxas).
func.func @ipow(%x: tensor<4xi64>) -> tensor<4xi64> {
  %y = magi.pow %x, %x : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %y : tensor<4xi64>
}
