// `import TimerLoop` gives the whole library, as it did before the split into
// the scheduler core, the epoll host and the Foundation forms (see
// <doc:Architecture>).
@_exported import TimerLoopCore
@_exported import TimerLoopEpoll
@_exported import TimerLoopFoundation
