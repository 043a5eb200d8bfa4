// bcast's side of scripts/bench.sh: reads commands from stdin, one a line,
// and answers each with JSON lines on stdout, so that compare.py can
// interleave bcast, PyTorch and NumPy case by case on a noisy machine.
//
//   case name=ID threads=1,all [runs=9] <spec, see bench_case.h>
//       -> {"kind":"case","name":ID,"threads":T,"median_ns":..,"bytes":..}
//   ceiling threads=1,all [n=16777216] [runs=9]
//       -> {"kind":"ceiling","variant":"plain"|"stream",...}
//   latency threads=1,all [n=32] [runs=15]
//       -> {"kind":"latency","threads":T,"ns_per_call":..}  (f32 out= add)
//   info
//       -> {"kind":"info","version":..,"simd":..,"threads":..}
//
// `bcast_compare_driver --memory` instead allocates (4096,1)+(1,4096) in a
// fresh process and reports the growth of the peak resident set, to show
// that no operand is materialised.
#include <bcast/bcast.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_case.h"
#include "ceiling.h"

namespace {

using Clock = std::chrono::steady_clock;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

struct Timing {
  double median_ns = 0;  // per call
  double min_ns = 0;
  int64_t calls_per_run = 0;
  int runs = 0;
};

// Median over `runs` runs of the time per call; each run repeats the call
// often enough to last about `run_ns`, so that tiny ops are not dominated by
// the clock.
Timing Measure(const std::function<void()>& call, int runs, int64_t run_ns = 2000000) {
  call();  // warm caches, page in the result, start OpenMP's threads
  int64_t t0 = NowNs();
  call();
  int64_t one = std::max<int64_t>(1, NowNs() - t0);
  int64_t k = std::max<int64_t>(1, run_ns / one);
  if (k > 1) {  // a better estimate for cheap calls
    t0 = NowNs();
    for (int64_t i = 0; i < k; ++i) call();
    one = std::max<int64_t>(1, (NowNs() - t0) / k);
    k = std::max<int64_t>(1, run_ns / one);
  }
  std::vector<double> per_call;
  for (int r = 0; r < runs; ++r) {
    t0 = NowNs();
    for (int64_t i = 0; i < k; ++i) call();
    per_call.push_back(static_cast<double>(NowNs() - t0) / static_cast<double>(k));
  }
  std::sort(per_call.begin(), per_call.end());
  Timing t;
  t.runs = runs;
  t.calls_per_run = k;
  t.min_ns = per_call.front();
  const size_t m = per_call.size() / 2;
  t.median_ns = per_call.size() % 2 ? per_call[m] : 0.5 * (per_call[m - 1] + per_call[m]);
  return t;
}

std::string Escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    o += c;
  }
  return o;
}

int AllThreads() {
  bc_set_num_threads(0);
  return bc_get_num_threads();
}

// "1,all" -> {1, default}; duplicates kept, so that rows line up.
std::vector<int> ParseThreads(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item == "all" ? AllThreads() : std::atoi(item.c_str()));
  return out;
}

std::string Get(const std::string& line, const std::string& key, const std::string& def) {
  std::stringstream ss(line);
  std::string tok;
  while (ss >> tok)
    if (tok.rfind(key + "=", 0) == 0) return tok.substr(key.size() + 1);
  return def;
}

void PrintTiming(std::ostream& os, const Timing& t) {
  os << ",\"median_ns\":" << t.median_ns << ",\"min_ns\":" << t.min_ns
     << ",\"calls_per_run\":" << t.calls_per_run << ",\"runs\":" << t.runs;
}

void RunCase(const std::string& line) {
  const std::string name = Get(line, "name", "?");
  const int runs = std::max(7, std::atoi(Get(line, "runs", "9").c_str()));
  try {
    bcbench::Case c(line);
    for (int threads : ParseThreads(Get(line, "threads", "1,all"))) {
      bc_set_num_threads(threads);
      Timing t = Measure([&c] { c.Run(); }, runs);
      std::ostringstream os;
      os << "{\"kind\":\"case\",\"name\":\"" << Escape(name) << "\",\"threads\":" << threads
         << ",\"bytes\":" << c.bytes();
      PrintTiming(os, t);
      os << "}";
      std::cout << os.str() << std::endl;
    }
  } catch (const std::exception& e) {
    std::cout << "{\"kind\":\"error\",\"name\":\"" << Escape(name) << "\",\"message\":\""
              << Escape(e.what()) << "\"}" << std::endl;
  }
  bc_set_num_threads(0);
}

void RunCeiling(const std::string& line) {
  const int64_t n = std::atoll(Get(line, "n", "16777216").c_str());
  const int runs = std::max(7, std::atoi(Get(line, "runs", "9").c_str()));
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  // The same memory as bcast's own tensors (bc_tensor_empty: 2 MiB aligned,
  // huge pages advised), so that the ceiling and bcast's operands differ
  // only in the loop that runs over them.
  bcbench::Tensor buf[3];
  for (bcbench::Tensor& t : buf) {
    bc_tensor* raw = nullptr;
    bcbench::Check(bc_tensor_empty(BC_FLOAT32, &n, 1, &raw), "bc_tensor_empty");
    t.reset(raw);
  }
  float* a = static_cast<float*>(bc_tensor_data(buf[0].get()));
  float* b = static_cast<float*>(bc_tensor_data(buf[1].get()));
  float* c = static_cast<float*>(bc_tensor_data(buf[2].get()));
  bcbench::Fill(BC_FLOAT32, a, static_cast<size_t>(n), 1);
  bcbench::Fill(BC_FLOAT32, b, static_cast<size_t>(n), 2);
  std::memset(c, 0, bytes);
  std::stringstream ss(Get(line, "threads", "1,all"));
  std::string item;
  while (std::getline(ss, item, ',')) {
    const int threads = item == "all" ? bcbench_max_threads() : std::atoi(item.c_str());
    for (const bool stream : {false, true}) {
      Timing t = Measure(
          [&] {
            if (stream) bcbench_add_stream(c, a, b, n, threads);
            else bcbench_add_plain(c, a, b, n, threads);
          },
          runs);
      std::ostringstream os;
      os << "{\"kind\":\"ceiling\",\"variant\":\"" << (stream ? "stream" : "plain")
         << "\",\"threads\":" << threads << ",\"bytes\":" << 3 * static_cast<int64_t>(bytes);
      PrintTiming(os, t);
      os << "}";
      std::cout << os.str() << std::endl;
    }
  }
}

// ns per call of a tiny f32 out= add, straight through the C ABI.
void RunLatency(const std::string& line) {
  const int64_t n = std::atoll(Get(line, "n", "32").c_str());
  const int runs = std::max(7, std::atoi(Get(line, "runs", "15").c_str()));
  bcbench::Tensor a(nullptr), b(nullptr), out(nullptr);
  bc_tensor* t = nullptr;
  std::vector<float> data(static_cast<size_t>(n));
  bcbench::Fill(BC_FLOAT32, data.data(), data.size(), 1);
  bcbench::Check(bc_tensor_from_data(BC_FLOAT32, &n, 1, data.data(), &t), "from_data");
  a.reset(t);
  bcbench::Check(bc_tensor_from_data(BC_FLOAT32, &n, 1, data.data(), &t), "from_data");
  b.reset(t);
  bcbench::Check(bc_tensor_empty(BC_FLOAT32, &n, 1, &t), "empty");
  out.reset(t);
  bc_tensor *pa = a.get(), *pb = b.get(), *po = out.get();
  for (int threads : ParseThreads(Get(line, "threads", "1,all"))) {
    bc_set_num_threads(threads);
    bcbench::Check(bc_binary_out(BC_ADD, pa, pb, po), "bc_binary_out");
    Timing tm = Measure([=] { bc_binary_out(BC_ADD, pa, pb, po); }, runs);
    std::ostringstream os;
    os << "{\"kind\":\"latency\",\"n\":" << n << ",\"threads\":" << threads
       << ",\"ns_per_call\":" << tm.median_ns;
    PrintTiming(os, tm);
    os << "}";
    std::cout << os.str() << std::endl;
  }
  bc_set_num_threads(0);
}

// Peak resident set in KiB. VmHWM belongs to this process image; getrusage's
// ru_maxrss survives execve, so a child of a big process (compare.py after
// its 16M-element cases) would inherit its parent's peak and show no growth.
long PeakRssKiB() {
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    long kib = -1;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
    std::fclose(f);
    if (kib >= 0) return kib;
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

int RunMemory() {
  const int64_t n = 4096;
  const int64_t col[2] = {n, 1}, row[2] = {1, n};
  std::vector<float> data(static_cast<size_t>(n));
  bcbench::Fill(BC_FLOAT32, data.data(), data.size(), 1);
  bc_tensor *a = nullptr, *b = nullptr, *c = nullptr;
  bcbench::Check(bc_tensor_from_data(BC_FLOAT32, col, 2, data.data(), &a), "from_data");
  bcbench::Check(bc_tensor_from_data(BC_FLOAT32, row, 2, data.data(), &b), "from_data");
  const long before = PeakRssKiB();
  const bc_status st = bc_binary(BC_ADD, a, b, &c);
  const long after = PeakRssKiB();
  std::cout << "{\"kind\":\"memory\",\"status\":\"" << bc_status_string(st)
            << "\",\"peak_rss_growth_bytes\":" << (after - before) * 1024
            << ",\"result_bytes\":" << n * n * 4 << "}" << std::endl;
  bc_tensor_free(c);
  bc_tensor_free(b);
  bc_tensor_free(a);
  return st == BC_OK ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--memory") == 0) return RunMemory();
  if (argc > 1) {
    std::fprintf(stderr, "usage: %s [--memory] < commands (see compare_driver.cc)\n", argv[0]);
    return 2;
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    std::stringstream ss(line);
    std::string cmd;
    if (!(ss >> cmd) || cmd[0] == '#') continue;
    try {
      if (cmd == "case") {
        RunCase(line.substr(line.find("case") + 4));
      } else if (cmd == "ceiling") {
        RunCeiling(line);
      } else if (cmd == "latency") {
        RunLatency(line);
      } else if (cmd == "info") {
        std::cout << "{\"kind\":\"info\",\"version\":\"" << bc_version_string() << "\",\"simd\":\""
                  << bc_simd_target() << "\",\"threads\":" << AllThreads() << "}" << std::endl;
      } else {
        throw std::invalid_argument("unknown command '" + cmd + "'");
      }
    } catch (const std::exception& e) {
      std::cout << "{\"kind\":\"error\",\"message\":\"" << Escape(e.what()) << "\"}" << std::endl;
    }
  }
  return 0;
}
