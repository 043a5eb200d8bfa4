// bcast: command-line front end to the library, using only its public C API.
//
//   bcast explain [--in-place] X Y   why shapes X and Y broadcast (or not)
//   bcast demo                       PyTorch's broadcasting notes, run for real
//   bcast info                       versions, SIMD target, threads
//   bcast --version
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "bcast/bcast.h"
#include "cli_common.h"
#include "demo.h"
#include "explain.h"

namespace {

constexpr int kUsageError = 2;

void Usage(std::ostream& os) {
  os << "usage: bcast explain [--in-place] SHAPE_X SHAPE_Y\n"
        "       bcast demo\n"
        "       bcast info\n"
        "       bcast --version | --help\n"
        "\n"
        "SHAPE is a comma-separated size list such as 5,2,4,1 or (3,1,1); \"\" or ()\n"
        "is a 0-dim tensor. explain exits 0 if the shapes broadcast (and, with\n"
        "--in-place, x.add_(y) keeps x's shape), 1 if not, 3 if the library\n"
        "disagrees with the broadcasting rules.\n";
}

int RunExplain(const std::vector<std::string>& args) {
  bool in_place = false;
  std::vector<std::string> shapes;
  for (const std::string& a : args) {
    if (a == "--in-place" || a == "--inplace") {
      in_place = true;
    } else {
      shapes.push_back(a);
    }
  }
  if (shapes.size() != 2) {
    Usage(std::cerr);
    return kUsageError;
  }
  bcast_cli::Shape xy[2];
  for (int i = 0; i < 2; ++i) {
    auto s = bcast_cli::ParseShape(shapes[i]);
    if (!s) {
      std::cerr << "bcast: not a shape: \"" << shapes[i]
                << "\" (want sizes >= 0 separated by commas, at most " << BC_MAX_DIMS
                << " of them)\n";
      return kUsageError;
    }
    xy[i] = *s;
  }
  bcast_cli::ExplainResult r = bcast_cli::Explain(std::cout, xy[0], xy[1], in_place);
  if (!r.consistent) return 3;
  if (!r.broadcastable || (in_place && !r.keeps_x_shape)) return 1;
  return 0;
}

int RunInfo() {
  const int v = bc_version();
  std::cout << "bcast " << bc_version_string() << "\n"
            << "library version:  " << bc_version_string() << " (bc_version() = " << v << ")\n"
            << "header version:   " << BC_VERSION_STRING << "\n"
            << "ABI:              libbcast.so." << v / 10000 << " (SOVERSION " << v / 10000
            << "; the C ABI is stable within a major version)\n"
            << "SIMD target:      " << bc_simd_target() << "\n"
            << "threads:          " << bc_get_num_threads() << "\n";
  if (v / 10000 != BC_VERSION_MAJOR) {
    std::cout << "warning: built against headers " << BC_VERSION_STRING
              << " but running library " << bc_version_string() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    Usage(std::cerr);
    return kUsageError;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  if (cmd == "--version" || cmd == "version") {
    std::cout << "bcast " << bc_version_string() << "\n";
    return 0;
  }
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    Usage(std::cout);
    return 0;
  }
  if (cmd == "explain") return RunExplain(args);
  if (cmd == "info" && args.empty()) return RunInfo();
  if (cmd == "demo" && args.empty()) return bcast_cli::RunDemo(std::cout);
  std::cerr << "bcast: unknown command \"" << cmd << "\"\n";
  Usage(std::cerr);
  return kUsageError;
}
