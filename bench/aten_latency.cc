// PyTorch's side of the small-op latency row, from C++ so that no Python
// binding overhead hides in it: at::add_out on two (n) float tensors, ns per
// call, median of `runs` runs that each last about 2 ms. Prints JSON lines in
// the format of bcast_compare_driver's "latency" command.
//
//   bcast_aten_latency [n=32] [runs=15] [threads=1,all]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 32;
  int runs = 15;
  std::string threads_text = "1,all";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("n=", 0) == 0) n = std::atoll(arg.c_str() + 2);
    else if (arg.rfind("runs=", 0) == 0) runs = std::max(7, std::atoi(arg.c_str() + 5));
    else if (arg.rfind("threads=", 0) == 0) threads_text = arg.substr(8);
  }
  // ATen defaults to physical cores; "all" means every CPU, as bcast counts them.
  const int all = std::max(1u, std::thread::hardware_concurrency());
  at::Tensor a = at::rand({n}), b = at::rand({n}), out = at::empty({n});
  std::stringstream ss(threads_text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const int threads = item == "all" ? all : std::atoi(item.c_str());
    at::set_num_threads(threads);
    auto call = [&] { at::add_out(out, a, b); };
    for (int i = 0; i < 1000; ++i) call();
    int64_t t0 = NowNs();
    for (int i = 0; i < 1000; ++i) call();
    const int64_t one = std::max<int64_t>(1, (NowNs() - t0) / 1000);
    const int64_t k = std::max<int64_t>(1, 2000000 / one);
    std::vector<double> per_call;
    for (int r = 0; r < runs; ++r) {
      t0 = NowNs();
      for (int64_t i = 0; i < k; ++i) call();
      per_call.push_back(static_cast<double>(NowNs() - t0) / static_cast<double>(k));
    }
    std::sort(per_call.begin(), per_call.end());
    const double median = per_call.size() % 2
                              ? per_call[per_call.size() / 2]
                              : 0.5 * (per_call[per_call.size() / 2 - 1] + per_call[per_call.size() / 2]);
    std::cout << "{\"kind\":\"latency\",\"lib\":\"aten\",\"n\":" << n << ",\"threads\":" << threads
              << ",\"ns_per_call\":" << median << ",\"min_ns\":" << per_call.front()
              << ",\"calls_per_run\":" << k << ",\"runs\":" << runs << "}" << std::endl;
  }
  return 0;
}
