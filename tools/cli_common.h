// Pieces shared by the bcast CLI's commands: owning tensor handles, shape
// parsing and printing in PyTorch's spelling. Uses only the public C API.
#ifndef BCAST_TOOLS_CLI_COMMON_H_
#define BCAST_TOOLS_CLI_COMMON_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bcast/bcast.h"

namespace bcast_cli {

using Shape = std::vector<int64_t>;

struct TensorDeleter {
  void operator()(bc_tensor* t) const { bc_tensor_free(t); }
};
using Tensor = std::unique_ptr<bc_tensor, TensorDeleter>;

// "5,2,4,1", "(5, 2, 4, 1)", "[3]" or "" / "()" / "[]" for a 0-dim shape.
inline std::optional<Shape> ParseShape(const std::string& text) {
  std::string s;
  for (char c : text) {
    if (c != ' ' && c != '(' && c != ')' && c != '[' && c != ']') s += c;
  }
  Shape shape;
  if (s.empty() || s == "scalar") return shape;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    std::string item = s.substr(pos, comma - pos);
    // A trailing comma as in Python's "(0,)" ends the list.
    if (item.empty() && comma == s.size() && !shape.empty()) break;
    if (item.empty() || item.size() > 18) return std::nullopt;
    for (char c : item) {
      if (c < '0' || c > '9') return std::nullopt;
    }
    shape.push_back(std::stoll(item));
    pos = comma + 1;
  }
  if (shape.size() > BC_MAX_DIMS) return std::nullopt;
  return shape;
}

// PyTorch's spelling of a size list: "[5, 3, 4, 1]".
inline std::string FormatShape(const int64_t* d, size_t n) {
  std::string s = "[";
  for (size_t i = 0; i < n; ++i) {
    if (i) s += ", ";
    s += std::to_string(d[i]);
  }
  return s + "]";
}
inline std::string FormatShape(const Shape& s) { return FormatShape(s.data(), s.size()); }

inline Shape ShapeOf(const bc_tensor* t) {
  const int64_t* d = bc_tensor_shape(t);
  return Shape(d, d + bc_tensor_ndim(t));
}

// Product of the sizes, or -1 if it does not fit in int64_t.
inline int64_t Numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d != 0 && n > INT64_MAX / d) return -1;
    n *= d;
  }
  return n;
}

// "1st", "2nd", "3rd", "4th", ..., "11th", "12th", "13th", "21st".
inline std::string Ordinal(size_t n) {
  const char* suffix = "th";
  if (n % 100 < 11 || n % 100 > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return std::to_string(n) + suffix;
}

}  // namespace bcast_cli

#endif  // BCAST_TOOLS_CLI_COMMON_H_
