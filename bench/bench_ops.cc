// Google Benchmark suite over the broadcasting matrix: shape patterns x ops
// x dtypes x forms (allocating, out=, in place) x threads (1, all cores).
// Bytes/s counts bytes read + written (see bench_case.h).
//
// Names are  <set>/<pattern>/<op>/<dtype>/<mode>/n:<result elements>/threads:<T>
// with <set> "quick" (a handful, the default) or "full" (the whole matrix):
//
//   bcast_bench                                       # quick set, ~20 s
//   bcast_bench --benchmark_filter=^full/             # everything (hours)
//   bcast_bench --benchmark_filter='^full/outer.*/add/f32/out/'
//   bcast_bench --benchmark_filter=^full/ --benchmark_list_tests
#include <benchmark/benchmark.h>
#include <bcast/bcast.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_case.h"

namespace {

struct Shapes {
  std::string pattern;
  std::string a, b;  // operands in bench_case.h syntax; `a` is the big one when there is one
};

std::string Dims(std::initializer_list<int64_t> dims) {
  std::string s;
  for (int64_t d : dims) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

int64_t Isqrt(int64_t n) { return static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(n)))); }

// Shape patterns with about `n` result elements.
std::vector<Shapes> Patterns(int64_t n, bool sweep_only) {
  std::vector<Shapes> out;
  const int64_t cols = std::min<int64_t>(n, 1024), rows = n / cols;
  out.push_back({"same", Dims({n}), Dims({n})});
  out.push_back({"scalar", Dims({n}), "s"});
  out.push_back({"row", Dims({rows, cols}), Dims({cols})});
  out.push_back({"column", Dims({rows, cols}), Dims({rows, 1})});
  if (sweep_only) return out;
  for (int64_t m : {2, 16, 1024, 4096})
    out.push_back({"outer_m" + std::to_string(m), Dims({n / m, 1}), Dims({1, m})});
  for (int64_t c : {2, 64, 4096}) {
    const int64_t t = std::min<int64_t>(64, n / c), b = n / (t * c);
    out.push_back({"middle_c" + std::to_string(c), Dims({b, t, c}), Dims({b, 1, c})});
  }
  for (int64_t inner : {2, 16, 128}) {
    const int64_t k = std::max<int64_t>(1, n / (1024 * inner));
    out.push_back({"short_inner_n" + std::to_string(inner), Dims({1, 32, 32, inner}),
                   Dims({k, 1, 1, inner})});
  }
  const int64_t s = Isqrt(n);
  out.push_back({"transposed", Dims({s, s}), Dims({s, s}) + ":T"});
  out.push_back({"sliced", Dims({rows, cols}), Dims({rows, cols}) + ":S"});
  return out;
}

// The spec for `op` over two shapes; ternary ops take (big, small, small)
// except where, whose condition comes first: where(small, big, small).
std::string Spec(const std::string& op, const std::string& dtype, const std::string& mode,
                 const Shapes& s) {
  std::string operands;
  if (op == "where") operands = "a=" + s.b + " b=" + s.a + " c=" + s.b;
  // Integer addcmul takes only an integral value.
  else if (op == "addcmul") operands = "a=" + s.a + " b=" + s.b + " c=" + s.b + (dtype[0] == 'i' ? " value=1" : "");
  else operands = "a=" + s.a + " b=" + s.b;
  return "op=" + op + " dtype=" + dtype + " mode=" + mode + " " + operands;
}

// Whether the form exists for these operands (in place needs self to have
// the broadcast shape and a result dtype it can hold).
bool Valid(const std::string& spec) {
  const bcbench::CaseSpec c = bcbench::ParseCase(spec);
  if (c.mode != bcbench::Mode::kInplace) return true;
  std::vector<const int64_t*> shapes;
  std::vector<size_t> ndims;
  for (const auto& o : c.operands) {
    shapes.push_back(o.shape.data());
    ndims.push_back(o.shape.size());
  }
  int64_t shape[BC_MAX_DIMS];
  size_t nd = 0;
  if (bc_broadcast_shapes_n(shapes.data(), ndims.data(), shapes.size(), shape, sizeof shape / sizeof shape[0], &nd) != BC_OK)
    return false;
  const auto& self = c.operands[c.op == "where" ? 1 : 0].shape;
  if (self != std::vector<int64_t>(shape, shape + nd)) return false;
  return !(c.op == "div" && !bcbench::IsFloating(c.dtype));
}

// Building a 64M-element case costs more than timing it: keep the last one,
// since a benchmark's runs (and its thread variants) come one after another.
bcbench::Case& Cached(const std::string& spec) {
  static std::string key;
  static std::unique_ptr<bcbench::Case> last;
  if (!last || key != spec) {
    last.reset();
    last = std::make_unique<bcbench::Case>(spec);
    key = spec;
  }
  return *last;
}

void RunSpec(benchmark::State& state, const std::string& spec, int threads) {
  bcbench::Case* c = nullptr;
  try {
    c = &Cached(spec);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  bc_set_num_threads(threads);
  if (c->Call() != BC_OK) {
    state.SkipWithError(bc_last_error());
    bc_set_num_threads(0);
    return;
  }
  for (auto _ : state) {
    const bc_status st = c->Call();
    benchmark::DoNotOptimize(st);
  }
  bc_set_num_threads(0);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * c->bytes());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * c->result_numel());
}

void Register(const std::string& set, const std::string& pattern, const std::string& op,
              const std::string& dtype, const std::string& mode, int64_t n, const std::string& spec,
              const std::vector<int>& thread_counts) {
  for (int t : thread_counts) {
    const std::string name = set + "/" + pattern + "/" + op + "/" + dtype + "/" + mode +
                             "/n:" + std::to_string(n) + "/threads:" + std::to_string(t);
    benchmark::RegisterBenchmark(name.c_str(), [spec, t](benchmark::State& s) { RunSpec(s, spec, t); })
        ->UseRealTime();
  }
}

void RegisterAll() {
  bc_set_num_threads(0);
  const int all = bc_get_num_threads();
  const std::vector<int> threads = all > 1 ? std::vector<int>{1, all} : std::vector<int>{1};

  // quick: a few f32 out= adds that say most about the engine.
  const int64_t big = int64_t{1} << 24;
  for (int64_t n : {int64_t{32}, int64_t{1} << 16, big}) {
    const Shapes s = Patterns(n, true)[0];
    Register("quick", s.pattern, "add", "f32", "out", n, Spec("add", "f32", "out", s), threads);
  }
  for (const Shapes& s : Patterns(big, false)) {
    if (s.pattern == "row" || s.pattern == "outer_m1024" || s.pattern == "middle_c64" ||
        s.pattern == "transposed")
      Register("quick", s.pattern, "add", "f32", "out", big, Spec("add", "f32", "out", s), threads);
    if (s.pattern == "row") {
      Register("quick", s.pattern, "where", "f32", "out", big, Spec("where", "f32", "out", s), threads);
      Register("quick", s.pattern, "addcmul", "f32", "out", big, Spec("addcmul", "f32", "out", s),
               threads);
    }
  }

  // full: element counts 1..64M for the simple patterns, and every pattern
  // in cache (64K) and in memory (16M).
  std::vector<std::pair<int64_t, Shapes>> shapes;
  for (int64_t n = 1; n <= (int64_t{1} << 26); n *= (n < (int64_t{1} << 24) ? 16 : 4))
    for (const Shapes& s : Patterns(n, true)) shapes.push_back({n, s});
  for (int64_t n : {int64_t{1} << 16, big})
    for (const Shapes& s : Patterns(n, false))
      if (s.pattern != "same" && s.pattern != "scalar" && s.pattern != "row" && s.pattern != "column")
        shapes.push_back({n, s});
  for (const auto& [n, s] : shapes)
    for (const char* op : {"add", "mul", "div", "pow", "lt", "where", "addcmul"})
      for (const char* dtype : {"f32", "f64", "i32", "bf16"})
        for (const char* mode : {"alloc", "out", "inplace"}) {
          const std::string spec = Spec(op, dtype, mode, s);
          if (Valid(spec)) Register("full", s.pattern, op, dtype, mode, n, spec, threads);
        }
}

}  // namespace

int main(int argc, char** argv) {
  // Default to the quick set unless the caller picked benchmarks.
  std::vector<char*> args(argv, argv + argc);
  bool filtered = false;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_filter", 18) == 0) filtered = true;
  static char quick[] = "--benchmark_filter=^quick/";
  if (!filtered) args.insert(args.begin() + 1, quick);
  int n = static_cast<int>(args.size());
  RegisterAll();
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::AddCustomContext("bcast_version", bc_version_string());
  benchmark::AddCustomContext("bcast_simd", bc_simd_target());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
