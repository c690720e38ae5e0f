//===- ReplayMain.cpp - Run a fuzz target over saved inputs ---------------===//
//
// The main of a fuzz target built without libFuzzer (any compiler): each
// argument is an input file or a directory of them (read in name order),
// and each input goes once through LLVMFuzzerTestOneInput. ctest replays
// the seed corpora and the crashers found so far this way, so they stay
// fixed; scripts/fuzz.sh builds the same targets with libFuzzer instead.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (fs::is_directory(argv[i], ec)) {
      std::vector<fs::path> files;
      for (const fs::directory_entry &entry : fs::directory_iterator(argv[i]))
        if (entry.is_regular_file())
          files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else if (fs::is_regular_file(argv[i], ec)) {
      inputs.push_back(argv[i]);
    } else {
      std::fprintf(stderr, "%s: no such input file or directory\n", argv[i]);
      return 2;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "usage: %s INPUT|DIR...  (no inputs given)\n", argv[0]);
    return 2;
  }
  for (const fs::path &path : inputs) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "%s: cannot read\n", path.c_str());
      return 2;
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  }
  std::printf("replayed %zu input(s) without a crash\n", inputs.size());
  return 0;
}
