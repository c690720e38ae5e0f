//===- ImportTableTest.cpp - The importer's rows agree with ODS -----------===//
//
// Each converter row of the importer creates a magi op that declares the
// row's torch name (TorchOpInterface, `Magi_Torch<[...]>` in ODS), and each
// name an imported op declares has a row: adding an op means one ODS entry
// and one row, and the two cannot drift apart.
//
//===----------------------------------------------------------------------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Import/TorchExport.h"
#include "magi/InitAllDialects.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringSet.h"
#include "gtest/gtest.h"

using namespace mlir;

namespace {

class ImportTableTest : public ::testing::Test {
protected:
  ImportTableTest() {
    DialectRegistry registry;
    magi::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadDialect<magi::MagiDialect>();
  }
  MLIRContext context;
};

TEST_F(ImportTableTest, EveryRowCreatesAnOpThatDeclaresItsName) {
  std::vector<magi::ImportedTorchOp> rows = magi::importedTorchOps();
  ASSERT_GT(rows.size(), 100u);
  llvm::StringSet<> seen;
  for (const magi::ImportedTorchOp &row : rows) {
    EXPECT_TRUE(seen.insert(row.torchName).second)
        << "two rows for " << row.torchName;
    // A stride or storage offset the archive records as an integer becomes
    // an index constant, an upstream op with nothing to declare.
    if (row.magiOp == "arith.constant")
      continue;
    std::optional<RegisteredOperationName> op =
        RegisteredOperationName::lookup(row.magiOp, &context);
    ASSERT_TRUE(op) << row.torchName << " creates " << row.magiOp
                    << ", which is no registered op";
    ArrayRef<StringRef> names = magi::torchOpNamesOf(*op);
    EXPECT_TRUE(llvm::is_contained(names, row.torchName))
        << row.magiOp << " does not declare " << row.torchName
        << " in its Magi_Torch<[...]> list";
  }
}

TEST_F(ImportTableTest, EveryDeclaredNameOfAnImportedOpHasARow) {
  llvm::StringSet<> rows;
  for (const magi::ImportedTorchOp &row : magi::importedTorchOps())
    rows.insert(row.torchName);
  unsigned declaring = 0;
  for (RegisteredOperationName op :
       context.getLoadedDialect<magi::MagiDialect>()->getContext()
           ->getRegisteredOperations()) {
    if (op.getDialectNamespace() != "magi")
      continue;
    ArrayRef<StringRef> names = magi::torchOpNamesOf(op);
    declaring += !names.empty();
    // Fused ops name the torch op they compute, which graphs need not hold.
    if (op.hasInterface<magi::DecomposableOpInterface>())
      continue;
    for (StringRef name : names)
      EXPECT_TRUE(rows.contains(name))
          << op.getStringRef().str() << " declares " << name.str()
          << " but the importer has no row for it";
  }
  EXPECT_GT(declaring, 100u);
}

TEST_F(ImportTableTest, OpsWithoutTorchCounterpartDeclareNone) {
  for (StringRef name : {"magi.opaque", "magi.constant", "magi.symbolic_int",
                         "magi.bind_symbolic_shape", "magi.tiled_attention"}) {
    std::optional<RegisteredOperationName> op =
        RegisteredOperationName::lookup(name, &context);
    ASSERT_TRUE(op) << name.str();
    EXPECT_TRUE(magi::torchOpNamesOf(*op).empty()) << name.str();
  }
}

} // namespace
