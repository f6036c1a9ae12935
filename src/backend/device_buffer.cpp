#include "triton_jit/device_buffer.h"

#include <utility>

#include <fmt/format.h>

#include "backend/active_backend.h"
#include "triton_jit/errors.h"

namespace triton_jit {

using detail::ActiveBackend;

DeviceBuffer::DeviceBuffer(std::size_t bytes, int device)
    : bytes_(bytes), device_(device < 0 ? ActiveBackend::current_device() : device) {
  ptr_ = ActiveBackend::allocate(device_, bytes);
  try {
    if (bytes != 0) {
      ActiveBackend::fill_zero(ptr_, bytes, nullptr);
      ActiveBackend::synchronize(device_, nullptr);
    }
  } catch (...) {
    ActiveBackend::release(device_, ptr_);
    throw;
  }
}

DeviceBuffer::~DeviceBuffer() { ActiveBackend::release(device_, ptr_); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)), device_(other.device_) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    ActiveBackend::release(device_, ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    device_ = other.device_;
  }
  return *this;
}

namespace {

void check_range(const char* what, std::size_t buffer, std::size_t bytes, std::size_t offset) {
  if (offset > buffer || bytes > buffer - offset) {
    throw ValueError(fmt::format("DeviceBuffer::{}: {} bytes at offset {} do not fit in a buffer of {} bytes", what,
                                 bytes, offset, buffer));
  }
}

}  // namespace

void DeviceBuffer::upload(const void* host, std::size_t bytes, std::size_t offset) {
  check_range("upload", bytes_, bytes, offset);
  if (bytes != 0) ActiveBackend::upload(device_, static_cast<char*>(ptr_) + offset, host, bytes);
}

void DeviceBuffer::download(void* host, std::size_t bytes, std::size_t offset) const {
  check_range("download", bytes_, bytes, offset);
  if (bytes != 0) ActiveBackend::download(device_, host, static_cast<const char*>(ptr_) + offset, bytes);
}

void DeviceBuffer::zero(Stream stream) {
  if (bytes_ != 0) ActiveBackend::fill_zero(ptr_, bytes_, stream);
}

}  // namespace triton_jit
