#include "common/dependent_launch.h"

#include <ATen/cuda/CUDAContext.h>

namespace triton_jit::ops {
namespace {

thread_local int t_scopes = 0;

}  // namespace

DependentLaunches::DependentLaunches() noexcept { ++t_scopes; }
DependentLaunches::~DependentLaunches() { --t_scopes; }

bool dependent_launch(const at::Tensor& like) {
  if (t_scopes == 0) return false;
  return like.is_cuda() && at::cuda::getDeviceProperties(like.device().index())->major >= 9;  // griddepcontrol: sm_90
}

}  // namespace triton_jit::ops
