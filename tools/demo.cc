#include "demo.h"

#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "cli_common.h"
#include "explain.h"

namespace bcast_cli {

namespace {

class Demo {
 public:
  explicit Demo(std::ostream& os) : os_(os) {}

  int Run() {
    bc_set_warning_handler(&Demo::Collect, &warnings_);
    GeneralSemantics();
    ResultSize();
    InPlace();
    BackwardsCompatibility();
    Policy();
    bc_set_broadcast_warning(0);
    bc_set_legacy_pointwise(0);
    bc_set_warnings_as_errors(0);
    bc_set_broadcast_policy(BC_POLICY_ALLOW);
    bc_set_warning_handler(nullptr, nullptr);
    os_ << "\n" << checks_ << " checks, " << failures_ << " failed\n";
    return failures_ == 0 ? 0 : 1;
  }

 private:
  static void Collect(const char* message, void* user) {
    static_cast<std::vector<std::string>*>(user)->push_back(message);
  }

  void Section(const char* title) { os_ << "\n=== " << title << " ===\n"; }
  void Python(const char* line) { os_ << ">>> " << line << "\n"; }

  void Check(bool ok, const std::string& what) {
    ++checks_;
    if (!ok) {
      ++failures_;
      os_ << "CHECK FAILED: " << what << "\n";
    }
  }

  // x[i] = start + i (row-major), as float32 with the given shape.
  Tensor Iota(const Shape& shape, float start) {
    int64_t n = Numel(shape);
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = start + static_cast<float>(i);
    bc_tensor* t = nullptr;
    bc_status st = bc_tensor_from_data(BC_FLOAT32, shape.data(), shape.size(), v.data(), &t);
    Check(st == BC_OK, "bc_tensor_from_data " + FormatShape(shape));
    return Tensor(t);
  }

  static std::vector<float> Values(const bc_tensor* t) {
    std::vector<float> v(static_cast<size_t>(bc_tensor_numel(t)));
    bc_tensor_copy_to(t, v.data(), v.size() * sizeof(float));
    return v;
  }

  // The broadcasting rule written out as index arithmetic: the element of
  // an operand at a result index ignores missing and size-1 dimensions.
  static std::vector<float> NaiveAdd(const Shape& xs, const std::vector<float>& xv,
                                     const Shape& ys, const std::vector<float>& yv,
                                     const Shape& rs) {
    std::vector<float> r(static_cast<size_t>(Numel(rs)));
    std::vector<int64_t> idx(rs.size(), 0);
    auto offset = [&](const Shape& s) {
      int64_t off = 0;
      for (size_t i = 0; i < s.size(); ++i) {
        int64_t k = s[i] == 1 ? 0 : idx[rs.size() - s.size() + i];
        off = off * s[i] + k;
      }
      return static_cast<size_t>(off);
    };
    for (size_t e = 0; e < r.size(); ++e) {
      r[e] = xv[offset(xs)] + yv[offset(ys)];
      for (size_t d = rs.size(); d-- > 0;) {
        if (++idx[d] < rs[d]) break;
        idx[d] = 0;
      }
    }
    return r;
  }

  void PrintValues(const char* name, const std::vector<float>& v) {
    os_ << name << " values (first " << (v.size() < 8 ? v.size() : 8) << " of " << v.size()
        << "):";
    for (size_t i = 0; i < v.size() && i < 8; ++i) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " %g", static_cast<double>(v[i]));
      os_ << buf;
    }
    os_ << "\n";
  }

  void FlushWarnings() {
    for (const std::string& w : warnings_) os_ << "warning: " << w << "\n";
  }

  // x + y with x and y filled with distinct values; checks shape and values.
  void AddOk(const Shape& xs, const Shape& ys, const Shape& want) {
    Tensor x = Iota(xs, 1), y = Iota(ys, 100);
    bc_tensor* r = nullptr;
    bc_status st = bc_binary(BC_ADD, x.get(), y.get(), &r);
    Tensor res(r);
    if (st != BC_OK) {
      PrintLastError(os_, st);
      Check(false, "x + y should succeed");
      return;
    }
    Shape got = ShapeOf(res.get());
    os_ << "(x + y).size() -> " << FormatShape(got) << "\n";
    Check(got == want, "result shape " + FormatShape(got) + ", want " + FormatShape(want));
    std::vector<float> v = Values(res.get());
    PrintValues("x + y", v);
    if (got == want) {
      Check(v == NaiveAdd(xs, Values(x.get()), ys, Values(y.get()), want),
            "x + y values equal a naive broadcasting loop");
    }
  }

  // x + y must fail with `status` and exactly `message`.
  void AddFails(const Shape& xs, const Shape& ys, bc_status status, const std::string& message) {
    Tensor x = Iota(xs, 1), y = Iota(ys, 100);
    bc_tensor* r = reinterpret_cast<bc_tensor*>(&r);  // must come back NULL
    bc_status st = bc_binary(BC_ADD, x.get(), y.get(), &r);
    if (st == BC_OK) {
      Tensor leak(r);
      Check(false, "x + y should fail");
      return;
    }
    PrintLastError(os_, st);
    Check(r == nullptr, "*out is NULL after a failure");
    Check(st == status, std::string("status ") + bc_status_string(st) + ", want " +
                            bc_status_string(status));
    Check(message == bc_last_error(), "message is \"" + message + "\"");
  }

  void GeneralSemantics() {
    Section("General semantics");
    Python("x=torch.empty(5,7,3); y=torch.empty(5,7,3)");
    os_ << "# same shapes are always broadcastable\n";
    AddOk({5, 7, 3}, {5, 7, 3}, {5, 7, 3});

    Python("x=torch.empty((0,)); y=torch.empty(2,2)");
    os_ << "# the notes say x has no dimension; today x has one dimension of size 0,\n"
           "# and 0 != 2 at the 1st trailing dimension, so it still fails:\n";
    AddFails({0}, {2, 2}, BC_ERR_NOT_BROADCASTABLE,
             "The size of tensor a (0) must match the size of tensor b (2) at non-singleton "
             "dimension 1");
    Python("x=torch.empty(()); y=torch.empty(2,2)");
    os_ << "# a true 0-dim tensor (a scalar) broadcasts with anything:\n";
    AddOk({}, {2, 2}, {2, 2});

    Python("x=torch.empty(5,3,4,1); y=torch.empty(3,1,1)");
    Explain(os_, {5, 3, 4, 1}, {3, 1, 1}, false);
    AddOk({5, 3, 4, 1}, {3, 1, 1}, {5, 3, 4, 1});

    Python("x=torch.empty(5,2,4,1); y=torch.empty(3,1,1)");
    Explain(os_, {5, 2, 4, 1}, {3, 1, 1}, false);
  }

  void ResultSize() {
    Section("Result size");
    Python("x=torch.empty(5,1,4,1); y=torch.empty(  3,1,1); (x+y).size()");
    AddOk({5, 1, 4, 1}, {3, 1, 1}, {5, 3, 4, 1});
    Python("x=torch.empty(1); y=torch.empty(3,1,7); (x+y).size()");
    AddOk({1}, {3, 1, 7}, {3, 1, 7});
    Python("x=torch.empty(5,2,4,1); y=torch.empty(3,1,1); (x+y).size()");
    AddFails({5, 2, 4, 1}, {3, 1, 1}, BC_ERR_NOT_BROADCASTABLE,
             "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
             "dimension 1");
  }

  // x.add_(y); returns the status and checks that a failure left x alone.
  bc_status AddInPlace(const Shape& xs, const Shape& ys) {
    Tensor x = Iota(xs, 1), y = Iota(ys, 100);
    std::vector<float> before = Values(x.get());
    bc_status st = bc_binary_(BC_ADD, x.get(), y.get());
    if (st == BC_OK) {
      Shape got = ShapeOf(x.get());
      os_ << "(x.add_(y)).size() -> " << FormatShape(got) << "\n";
      Check(got == xs, "x keeps its shape");
      std::vector<float> v = Values(x.get());
      PrintValues("x", v);
      Check(v == NaiveAdd(xs, before, ys, Values(y.get()), xs),
            "x.add_(y) values equal a naive broadcasting loop");
    } else {
      PrintLastError(os_, st);
      Check(Values(x.get()) == before, "a failed x.add_(y) leaves x unchanged");
    }
    return st;
  }

  void InPlace() {
    Section("In-place semantics");
    Python("x=torch.empty(5,3,4,1); y=torch.empty(3,1,1); (x.add_(y)).size()");
    Check(AddInPlace({5, 3, 4, 1}, {3, 1, 1}) == BC_OK, "x.add_(y) succeeds");

    Python("x=torch.empty(1,3,1); y=torch.empty(3,1,7); (x.add_(y)).size()");
    bc_status st = AddInPlace({1, 3, 1}, {3, 1, 7});
    Check(st == BC_ERR_SHAPE_MISMATCH, "x.add_(y) fails with BC_ERR_SHAPE_MISMATCH");
    Check(std::string(bc_last_error()) ==
              "output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]",
          "today's PyTorch text");
    os_ << "# the notes quote the older wording, which bc_set_legacy_pointwise(1) restores:\n";
    bc_set_legacy_pointwise(1);
    st = AddInPlace({1, 3, 1}, {3, 1, 7});
    bc_set_legacy_pointwise(0);
    Check(st == BC_ERR_SHAPE_MISMATCH, "legacy x.add_(y) fails with BC_ERR_SHAPE_MISMATCH");
    Check(std::string(bc_last_error()) ==
              "The expanded size of the tensor (1) must match the existing size (7) at "
              "non-singleton dimension 2.  Target sizes: [1, 3, 1].  Tensor sizes: [3, 1, 7]",
          "the notes' older text");
  }

  void BackwardsCompatibility() {
    static const char kBroadcastWarning[] =
        "self and other do not have the same shape, but are broadcastable, and have the same "
        "number of elements. Changing behavior in a backwards incompatible manner to "
        "broadcasting rather than viewing as 1-dimensional.";
    static const char kPointwiseWarning[] =
        "other is not broadcastable to self, but they have the same number of elements. "
        "Falling back to deprecated pointwise behavior.";

    Section("Backwards compatibility");
    Python("torch.add(torch.ones(4,1), torch.randn(4))");
    os_ << "# once Size([4,1]) (1-D pointwise), now Size([4,4]); no warning by default:\n";
    warnings_.clear();
    AddOk({4, 1}, {4}, {4, 4});
    Check(warnings_.empty(), "no warning by default");

    Python("torch.utils.backcompat.broadcast_warning.enabled=True");
    Python("torch.add(torch.ones(4,1), torch.ones(4))");
    bc_set_broadcast_warning(1);
    warnings_.clear();
    AddOk({4, 1}, {4}, {4, 4});
    FlushWarnings();
    Check(warnings_.size() == 1 && warnings_[0] == kBroadcastWarning,
          "one broadcast warning with PyTorch's text");
    bc_set_broadcast_warning(0);

    os_ << "# not broadcastable, but the same number of elements:\n";
    Python("torch.add(torch.ones(2,3), torch.ones(3,2))");
    AddFails({2, 3}, {3, 2}, BC_ERR_NOT_BROADCASTABLE,
             "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
             "dimension 1");
    os_ << "# the deprecated pointwise fallback, bc_set_legacy_pointwise(1):\n";
    bc_set_legacy_pointwise(1);
    warnings_.clear();
    Tensor x = Iota({2, 3}, 1), y = Iota({3, 2}, 100);
    bc_tensor* r = nullptr;
    bc_status st = bc_binary(BC_ADD, x.get(), y.get(), &r);
    Tensor res(r);
    bc_set_legacy_pointwise(0);
    if (st != BC_OK) {
      PrintLastError(os_, st);
      Check(false, "legacy pointwise add succeeds");
    } else {
      Shape got = ShapeOf(res.get());
      os_ << "(x + y).size() -> " << FormatShape(got) << "\n";
      std::vector<float> v = Values(res.get()), xv = Values(x.get()), yv = Values(y.get());
      PrintValues("x + y", v);
      FlushWarnings();
      Check(got == Shape({2, 3}), "legacy result takes x's shape");
      bool same = v.size() == xv.size();
      for (size_t i = 0; same && i < v.size(); ++i) same = v[i] == xv[i] + yv[i];
      Check(same, "legacy values are x and y added as 1-D sequences");
      Check(warnings_.size() == 1 && warnings_[0] == kPointwiseWarning,
            "one pointwise warning with PyTorch's text");
    }

    os_ << "# warnings as errors: the op fails with the warning as its message\n";
    bc_set_broadcast_warning(1);
    bc_set_warnings_as_errors(1);
    warnings_.clear();
    AddFails({4, 1}, {4}, BC_ERR_POLICY, kBroadcastWarning);
    Check(warnings_.empty(), "the handler is not called for a warning raised as an error");
    bc_set_warnings_as_errors(0);
    bc_set_broadcast_warning(0);
  }

  void Policy() {
    Section("Broadcast policy (bcast's own)");
    os_ << "# BC_POLICY_WARN: broadcasting works, and warns\n";
    bc_set_broadcast_policy(BC_POLICY_WARN);
    warnings_.clear();
    AddOk({5, 1, 4, 1}, {3, 1, 1}, {5, 3, 4, 1});
    FlushWarnings();
    Check(warnings_.size() == 1, "one policy warning");
    os_ << "# BC_POLICY_ERROR: implicit broadcasting is refused, scalars excepted\n";
    bc_set_broadcast_policy(BC_POLICY_ERROR);
    Tensor x = Iota({5, 1, 4, 1}, 1), y = Iota({3, 1, 1}, 100);
    bc_tensor* r = nullptr;
    bc_status st = bc_binary(BC_ADD, x.get(), y.get(), &r);
    Tensor res(r);
    if (st != BC_OK) PrintLastError(os_, st);
    Check(st == BC_ERR_POLICY, "BC_POLICY_ERROR refuses (5,1,4,1) + (3,1,1)");
    AddOk({}, {2, 2}, {2, 2});
    bc_set_broadcast_policy(BC_POLICY_ALLOW);
  }

  std::ostream& os_;
  std::vector<std::string> warnings_;
  int checks_ = 0;
  int failures_ = 0;
};

}  // namespace

int RunDemo(std::ostream& os) { return Demo(os).Run(); }

}  // namespace bcast_cli
