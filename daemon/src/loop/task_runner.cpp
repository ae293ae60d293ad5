#include "task_runner.h"

#include <pthread.h>

namespace energy::daemon {

struct TaskRunner::Shared {
  mutable std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> tasks;
  bool stopping = false;
  bool finished = false;
  std::condition_variable finished_cv;
};

namespace {

void worker(const std::shared_ptr<TaskRunner::Shared>& s) {
  std::unique_lock<std::mutex> lock(s->mu);
  while (!s->stopping) {
    s->cv.wait(lock, [&] { return s->stopping || !s->tasks.empty(); });
    while (!s->tasks.empty() && !s->stopping) {
      auto task = std::move(s->tasks.front());
      s->tasks.pop_front();
      lock.unlock();
      task();
      lock.lock();
    }
  }
  s->finished = true;
  s->finished_cv.notify_all();
}

}  // namespace

TaskRunner::TaskRunner(const char* name) : shared_(std::make_shared<Shared>()) {
  thread_ = std::thread([s = shared_, name] {
    pthread_setname_np(pthread_self(), name);
    worker(s);
  });
}

TaskRunner::~TaskRunner() { stop(std::chrono::milliseconds(2000)); }

void TaskRunner::post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->tasks.push_back(std::move(task));
  }
  shared_->cv.notify_one();
}

void TaskRunner::stop(std::chrono::milliseconds grace) {
  if (!thread_.joinable()) return;
  std::unique_lock<std::mutex> lock(shared_->mu);
  shared_->stopping = true;
  shared_->tasks.clear();
  shared_->cv.notify_one();
  bool done = shared_->finished_cv.wait_for(lock, grace, [&] { return shared_->finished; });
  lock.unlock();
  if (done)
    thread_.join();
  else
    thread_.detach();
}

size_t TaskRunner::pending() const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  return shared_->tasks.size();
}

}  // namespace energy::daemon
