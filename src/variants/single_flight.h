// One build per key at a time: the first caller of a key builds it, later callers of the same
// key wait for that result or exception. Used for functions (get_instance), variants and tuning
// choices. The owner's mutex guards the flights and the published results; waiting and locking
// happen without the GIL, so that a Python host thread never blocks a compile it waits for.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "compiler/compiler_bridge.h"

namespace triton_jit::detail {

template <class Key, class Result>
class SingleFlight {
 public:
  // find(): under the lock, the result already published or nullptr. build(): without the lock,
  // what publish() takes, or throws. publish(built): under the lock, makes the result findable
  // and returns it (nullptr only when build made nothing).
  template <class Find, class Build, class Publish>
  Result* run(std::mutex& mutex, const Key& key, Find&& find, Build&& build, Publish&& publish) {
    std::shared_ptr<Flight> flight;
    bool leader = false;
    Result* found = nullptr;
    run_without_gil([&] {
      std::unique_lock<std::mutex> lock(mutex);
      if ((found = find()) != nullptr) return;
      for (const auto& f : flights_) {
        if (f->key == key) flight = f;
      }
      if (flight) {
        // A timed wait, which is inline: the untimed wait(lock) of GCC 12's libstdc++ is a
        // GLIBCXX_3.4.30 symbol, absent from the libstdc++ of RHEL 9 (GCC 11) our packages serve.
        while (!flight->done) done_->wait_for(lock, std::chrono::hours(1));
        return;
      }
      flight = std::make_shared<Flight>(key);
      flights_.push_back(flight);
      leader = true;
    });
    if (found != nullptr) return found;
    if (!leader) {
      if (flight->error) std::rethrow_exception(flight->error);
      return flight->result;
    }
    decltype(build()) built{};
    std::exception_ptr error;
    try {
      built = build();
    } catch (...) {
      error = std::current_exception();
    }
    run_without_gil([&] {
      std::lock_guard<std::mutex> lock(mutex);
      flight->result = error ? nullptr : publish(std::move(built));
      flight->error = error;
      flight->done = true;
      std::erase(flights_, flight);
      done_->notify_all();
    });
    if (error) std::rethrow_exception(error);
    return flight->result;
  }

  // In a forked child (the owner's mutex held): the threads that led or waited are gone.
  void abandon() {
    flights_.clear();
    done_ = new std::condition_variable();  // leaked: the old one may count waiters that are gone
  }

 private:
  struct Flight {
    explicit Flight(const Key& k) : key(k) {}
    const Key key;
    bool done = false;  // guarded by the owner's mutex
    Result* result = nullptr;
    std::exception_ptr error;
  };
  std::vector<std::shared_ptr<Flight>> flights_;                   // guarded by the owner's mutex
  std::condition_variable* done_ = new std::condition_variable();  // replaced in a forked child
};

}  // namespace triton_jit::detail
