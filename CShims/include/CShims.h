// Thin, logic-free access to the Linux calls the event loop needs.
//
// Swift imports most of Glibc directly; these wrappers exist only where the C
// surface is a macro, a variadic call, or a constant whose type differs between
// C libraries. Each wrapper is named CShims_<exact C name> and does nothing but
// forward its arguments. `struct epoll_event` comes from <sys/epoll.h> as it is
// (it is packed on x86_64), never redeclared.
#ifndef CSHIMS_H
#define CSHIMS_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

// MARK: - timerfd

static inline int CShims_timerfd_create(int clockid, int flags) {
  return timerfd_create(clockid, flags);
}

static inline int CShims_timerfd_settime(int fd, int flags, const struct itimerspec *new_value,
                                         struct itimerspec *old_value) {
  return timerfd_settime(fd, flags, new_value, old_value);
}

static inline int CShims_TFD_CLOEXEC(void) { return TFD_CLOEXEC; }
static inline int CShims_TFD_NONBLOCK(void) { return TFD_NONBLOCK; }
static inline int CShims_TFD_TIMER_ABSTIME(void) { return TFD_TIMER_ABSTIME; }
static inline int CShims_TFD_TIMER_CANCEL_ON_SET(void) { return TFD_TIMER_CANCEL_ON_SET; }

// MARK: - epoll

static inline int CShims_epoll_create1(int flags) { return epoll_create1(flags); }

static inline int CShims_epoll_ctl(int epfd, int op, int fd, struct epoll_event *event) {
  return epoll_ctl(epfd, op, fd, event);
}

static inline int CShims_epoll_wait(int epfd, struct epoll_event *events, int maxevents,
                                    int timeout) {
  return epoll_wait(epfd, events, maxevents, timeout);
}

static inline int CShims_EPOLL_CLOEXEC(void) { return EPOLL_CLOEXEC; }
static inline int CShims_EPOLL_CTL_ADD(void) { return EPOLL_CTL_ADD; }
static inline int CShims_EPOLL_CTL_MOD(void) { return EPOLL_CTL_MOD; }
static inline int CShims_EPOLL_CTL_DEL(void) { return EPOLL_CTL_DEL; }
static inline uint32_t CShims_EPOLLIN(void) { return (uint32_t)EPOLLIN; }
static inline uint32_t CShims_EPOLLOUT(void) { return (uint32_t)EPOLLOUT; }
static inline uint32_t CShims_EPOLLERR(void) { return (uint32_t)EPOLLERR; }
static inline uint32_t CShims_EPOLLHUP(void) { return (uint32_t)EPOLLHUP; }
static inline uint32_t CShims_EPOLLRDHUP(void) { return (uint32_t)EPOLLRDHUP; }
static inline uint32_t CShims_EPOLLET(void) { return (uint32_t)EPOLLET; }

// MARK: - eventfd

static inline int CShims_eventfd(unsigned int initval, int flags) { return eventfd(initval, flags); }
static inline int CShims_eventfd_read(int fd, eventfd_t *value) { return eventfd_read(fd, value); }
static inline int CShims_eventfd_write(int fd, eventfd_t value) { return eventfd_write(fd, value); }

static inline int CShims_EFD_CLOEXEC(void) { return EFD_CLOEXEC; }
static inline int CShims_EFD_NONBLOCK(void) { return EFD_NONBLOCK; }

// MARK: - clocks

static inline int CShims_CLOCK_MONOTONIC(void) { return CLOCK_MONOTONIC; }

// MARK: - threads

// GNU-only: declared by <pthread.h> only under _GNU_SOURCE, which Swift's view
// of this header does not have, so it is defined out of line in shims.c.
int CShims_pthread_setname_np(pthread_t thread, const char *name);

// MARK: - errno

static inline int CShims_errno(void) { return errno; }

#endif  // CSHIMS_H
