// `bcast explain`: why two shapes do or do not broadcast, one line per
// trailing dimension in the words of PyTorch's broadcasting notes, then the
// library's own verdict (result shape or PyTorch's error text).
#ifndef BCAST_TOOLS_EXPLAIN_H_
#define BCAST_TOOLS_EXPLAIN_H_

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "cli_common.h"

namespace bcast_cli {

struct DimVerdict {
  size_t trailing;  // 1 for the last dimension
  bool ok;
  std::string reason;
};

// The rule itself, independent of the library, so that the two can be
// compared: sizes equal, one of them 1, or one of them missing.
std::vector<DimVerdict> JudgeDims(const Shape& x, const Shape& y);

// Rows of sizes right-aligned at the trailing dimension:
//   x      = (5, 2, 4, 1)
//   y      = (   3, 1, 1)
void PrintAligned(std::ostream& os, const std::vector<std::string>& labels,
                         const std::vector<Shape>& rows);

// Prints the library's error for the last failed call on this thread.
void PrintLastError(std::ostream& os, bc_status st);

struct ExplainResult {
  bool broadcastable;
  bool keeps_x_shape;  // the result has x's shape, as an in-place op needs
  bool consistent;     // the library agreed with JudgeDims
};

// Explains x op y. With in_place, also explains x.add_(y), which must keep
// x's shape; the library is asked for its verdict on zero-filled tensors
// when they are small enough to allocate.
ExplainResult Explain(std::ostream& os, const Shape& x, const Shape& y, bool in_place);

}  // namespace bcast_cli

#endif  // BCAST_TOOLS_EXPLAIN_H_
