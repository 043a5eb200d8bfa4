#include "cli_common.h"

#include <cstdio>
#include <cstdlib>

namespace bcast_cli {

std::optional<Shape> ParseShape(const std::string& text) {
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

std::string FormatShape(const int64_t* d, size_t n) {
  std::string s = "[";
  for (size_t i = 0; i < n; ++i) {
    if (i) s += ", ";
    s += std::to_string(d[i]);
  }
  return s + "]";
}

std::string FormatShape(const Shape& s) { return FormatShape(s.data(), s.size()); }

Shape ShapeOf(const bc_tensor* t) {
  const int64_t* d = bc_tensor_shape(t);
  return Shape(d, d + bc_tensor_ndim(t));
}

int64_t Numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d != 0 && n > INT64_MAX / d) return -1;
    n *= d;
  }
  return n;
}

std::string Ordinal(size_t n) {
  const char* suffix = "th";
  if (n % 100 < 11 || n % 100 > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return std::to_string(n) + suffix;
}
}  // namespace bcast_cli
