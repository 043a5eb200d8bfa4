// The expression language (bc_expr_parse): placeholder until the parser lands.
#include "core/error.h"
#include "core/expr.h"

namespace bcast {

std::unique_ptr<Expr> ParseExpr(const char*, const char* const*, size_t) {
  Fail(BC_ERR_INVALID_ARGUMENT, "bc_expr_parse: not built yet");
}

}  // namespace bcast
