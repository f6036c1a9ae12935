// The triton_jit namespace in the dispatcher: its definition, with the operators of no tensor
// (standing in for ATen, compiling ahead, the cache's settings) that the wheel's Python module
// calls. The families register their own operators (<family>/register.cpp).
#include <torch/library.h>

#include <string>
#include <tuple>
#include <vector>

#include <triton_jit/torch_library.h>

#include "common/ops.h"

namespace triton_jit::ops {
namespace {

void enable_op(const std::vector<std::string>& names) { ops::enable(names); }
void disable_op() { ops::disable(); }
std::vector<std::string> stand_ins_op() { return standing_in(); }
std::vector<std::string> enabled_op() { return enabled_stand_ins(); }
void set_routing_op(bool enabled) { set_stand_in_routing(enabled); }
std::tuple<std::vector<std::string>, std::vector<int64_t>, std::vector<int64_t>> routes_op() {
  std::tuple<std::vector<std::string>, std::vector<int64_t>, std::vector<int64_t>> table;
  for (const StandInRoutes& r : stand_in_routes()) {
    std::get<0>(table).push_back(r.op);
    std::get<1>(table).push_back(static_cast<int64_t>(r.ours));
    std::get<2>(table).push_back(static_cast<int64_t>(r.aten));
  }
  return table;
}
// For Python (the wheel's triton_jit module): compile ahead, and the settings of the cache.
std::vector<std::string> warmup_op(c10::ScalarType dtype) {
  std::vector<std::string> made;
  for (const auto& v : warmup(dtype)) made.push_back(v.kernel_name + " " + v.signature + " for " + v.target);
  return made;
}
std::string cache_dir_op() { return triton_jit::cache_dir(); }
void set_cache_dir_op(const std::string& directory) { triton_jit::set_cache_dir(directory); }
void set_offline_op(bool value) { triton_jit::set_offline(value); }
bool offline_op() { return triton_jit::offline(); }

}  // namespace
}  // namespace triton_jit::ops

TORCH_LIBRARY(triton_jit, m) {
  m.def("enable_aten(str[] ops) -> ()", &triton_jit::ops::enable_op);
  m.def("disable_aten() -> ()", &triton_jit::ops::disable_op);
  m.def("aten_stand_ins() -> str[]", &triton_jit::ops::stand_ins_op);
  m.def("enabled_aten_stand_ins() -> str[]", &triton_jit::ops::enabled_op);
  m.def("set_stand_in_routing(bool enabled) -> ()", &triton_jit::ops::set_routing_op);
  m.def("stand_in_routes() -> (str[] ops, int[] ours, int[] aten)", &triton_jit::ops::routes_op);
  m.def("warmup(ScalarType dtype) -> str[]", &triton_jit::ops::warmup_op);
  m.def("cache_dir() -> str", &triton_jit::ops::cache_dir_op);
  m.def("set_cache_dir(str directory) -> ()", &triton_jit::ops::set_cache_dir_op);
  m.def("set_offline(bool offline) -> ()", &triton_jit::ops::set_offline_op);
  m.def("offline() -> bool", &triton_jit::ops::offline_op);
}

// cat of an empty list has no tensor to dispatch on: this kernel says so as ATen does.
TORCH_LIBRARY_IMPL(triton_jit, CompositeExplicitAutograd, m) { m.impl("cat", TORCH_FN(triton_jit::ops::cat)); }
