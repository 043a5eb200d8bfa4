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
std::optional<Shape> ParseShape(const std::string& text);

// PyTorch's spelling of a size list: "[5, 3, 4, 1]".
std::string FormatShape(const int64_t* d, size_t n);
std::string FormatShape(const Shape& s);

Shape ShapeOf(const bc_tensor* t);

// Product of the sizes, or -1 if it does not fit in int64_t.
int64_t Numel(const Shape& s);

// "1st", "2nd", "3rd", "4th", ..., "11th", "12th", "13th", "21st".
std::string Ordinal(size_t n);

}  // namespace bcast_cli

#endif  // BCAST_TOOLS_CLI_COMMON_H_
