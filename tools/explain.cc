#include "explain.h"

#include <algorithm>
#include <cstdio>

namespace bcast_cli {

std::vector<DimVerdict> JudgeDims(const Shape& x, const Shape& y) {
  std::vector<DimVerdict> out;
  const size_t n = std::max(x.size(), y.size());
  for (size_t t = 1; t <= n; ++t) {
    const bool hx = t <= x.size(), hy = t <= y.size();
    const int64_t sx = hx ? x[x.size() - t] : 0, sy = hy ? y[y.size() - t] : 0;
    DimVerdict v{t, true, ""};
    if (!hx) {
      v.reason = "x dimension doesn't exist";
    } else if (!hy) {
      v.reason = "y dimension doesn't exist";
    } else if (sx == sy) {
      v.reason = sx == 1 ? "both have size 1" : "x size == y size";
    } else if (sx == 1) {
      v.reason = "x has size 1";
    } else if (sy == 1) {
      v.reason = "y has size 1";
    } else {
      v.ok = false;
      v.reason = std::to_string(sx) + " != " + std::to_string(sy);
    }
    out.push_back(v);
  }
  return out;
}

void PrintAligned(std::ostream& os, const std::vector<std::string>& labels,
                         const std::vector<Shape>& rows) {
  size_t n = 0, label_w = 0;
  for (const Shape& r : rows) n = std::max(n, r.size());
  for (const std::string& l : labels) label_w = std::max(label_w, l.size());
  std::vector<size_t> width(n, 1);
  for (const Shape& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) {
      size_t col = n - r.size() + i;
      width[col] = std::max(width[col], std::to_string(r[i]).size());
    }
  }
  for (size_t k = 0; k < rows.size(); ++k) {
    const Shape& r = rows[k];
    std::string line = "  " + labels[k] + std::string(label_w - labels[k].size(), ' ') + " = (";
    for (size_t col = 0; col < n; ++col) {
      std::string cell;
      if (col >= n - r.size()) cell = std::to_string(r[col - (n - r.size())]);
      line += std::string(width[col] - cell.size(), ' ') + cell;
      if (col + 1 < n) line += cell.empty() ? "  " : ", ";
    }
    line += ")";
    if (r.empty()) line += "  (0-dim)";
    os << line << "\n";
  }
}

void PrintLastError(std::ostream& os, bc_status st) {
  bc_error_detail det;
  bc_last_error_detail(&det);
  os << "error " << bc_status_string(st) << ": " << bc_last_error() << "\n";
  if (det.dim >= 0 || det.size_a >= 0 || det.size_b >= 0) {
    os << "detail: dim=" << det.dim << " size_a=" << det.size_a << " size_b=" << det.size_b
       << "\n";
  }
}

ExplainResult Explain(std::ostream& os, const Shape& x, const Shape& y, bool in_place) {
  os << "x: " << FormatShape(x) << (x.empty() ? " (0-dim)" : "") << "\n";
  os << "y: " << FormatShape(y) << (y.empty() ? " (0-dim)" : "") << "\n";

  std::vector<DimVerdict> dims = JudgeDims(x, y);
  Shape expected;
  for (size_t t = dims.size(); t >= 1; --t) {
    int64_t sx = t <= x.size() ? x[x.size() - t] : 1, sy = t <= y.size() ? y[y.size() - t] : 1;
    expected.push_back(sx == 1 ? sy : sx);
  }
  const DimVerdict* first_bad = nullptr;
  for (const DimVerdict& v : dims) {
    if (!v.ok && !first_bad) first_bad = &v;
  }

  Shape lib(std::max<size_t>(std::max(x.size(), y.size()), 1));
  size_t lib_n = 0;
  bc_status st = bc_broadcast_shapes(x.data(), x.size(), y.data(), y.size(), lib.data(), lib.size(), &lib_n);
  lib.resize(st == BC_OK ? lib_n : 0);

  std::vector<std::string> labels = {"x", "y"};
  std::vector<Shape> rows = {x, y};
  if (st == BC_OK) {
    labels.push_back("result");
    rows.push_back(lib);
  }
  os << "aligned at the trailing dimension:\n";
  PrintAligned(os, labels, rows);
  for (const DimVerdict& v : dims) {
    os << Ordinal(v.trailing) << " trailing dimension: " << v.reason << "\n";
  }
  if (dims.empty()) os << "(no dimensions: two 0-dim tensors)\n";

  ExplainResult res{first_bad == nullptr, first_bad == nullptr && expected == x, true};
  if (first_bad) {
    os << "x and y are not broadcastable, because in the " << Ordinal(first_bad->trailing)
       << " trailing dimension " << first_bad->reason << "\n";
    os << "PyTorch counts dimensions from the left of the aligned shapes: the "
       << Ordinal(first_bad->trailing) << " trailing dimension is dimension "
       << dims.size() - first_bad->trailing << ".\n";
  } else {
    os << "x and y are broadcastable.\n";
  }
  if (st == BC_OK) {
    os << "result: " << FormatShape(lib) << "\n";
    res.consistent = res.broadcastable && lib == expected;
  } else {
    PrintLastError(os, st);
    res.consistent = !res.broadcastable && st == BC_ERR_NOT_BROADCASTABLE;
  }

  const int64_t nx = Numel(x), ny = Numel(y);
  if (nx >= 0 && nx == ny && x != y) {
    if (res.broadcastable) {
      os << "note: same number of elements (" << nx << ") but different shapes; the "
         << "deprecated 1-D pointwise behaviour gave shape " << FormatShape(x)
         << ", broadcasting gives " << FormatShape(expected)
         << " (bc_set_broadcast_warning(1) warns here).\n";
    } else {
      os << "note: same number of elements (" << nx << "); with bc_set_legacy_pointwise(1) "
         << "this is computed 1-D in row-major order with shape " << FormatShape(x)
         << ", and a deprecation warning.\n";
    }
  }

  if (in_place) {
    os << "in place, x.add_(y):\n";
    if (res.keeps_x_shape) {
      os << "x keeps its shape " << FormatShape(x) << ": allowed.\n";
    } else if (res.broadcastable) {
      os << "the result shape " << FormatShape(expected) << " differs from x's shape "
         << FormatShape(x) << ", and an in-place op cannot change it.\n";
    } else {
      os << "x and y do not broadcast, so neither does x.add_(y).\n";
    }
    const int64_t kMaxElements = int64_t{1} << 24;
    if (nx < 0 || ny < 0 || nx > kMaxElements || ny > kMaxElements) {
      os << "(too large to ask the library with real tensors)\n";
    } else {
      Tensor tx, ty;
      bc_tensor *px = nullptr, *py = nullptr;
      bc_status s1 = bc_tensor_zeros(BC_FLOAT32, x.data(), x.size(), &px);
      tx.reset(px);
      bc_status s2 = s1 == BC_OK ? bc_tensor_zeros(BC_FLOAT32, y.data(), y.size(), &py) : s1;
      ty.reset(py);
      bc_status s3 = s2 == BC_OK ? bc_binary_(BC_ADD, tx.get(), ty.get()) : s2;
      if (s3 == BC_OK) {
        os << "library: ok, x's shape is " << FormatShape(ShapeOf(tx.get())) << "\n";
      } else {
        PrintLastError(os, s3);
      }
      if ((s3 == BC_OK) != res.keeps_x_shape && s3 != BC_ERR_OUT_OF_MEMORY) res.consistent = false;
    }
  }
  if (!res.consistent) {
    os << "INCONSISTENT: the library's verdict differs from the broadcasting rules above; "
          "please report this as a bcast bug.\n";
  }
  return res;
}
}  // namespace bcast_cli
