import Glibc

/// One pass of the loop: what runs, in which order, and how repeating timers
/// move on. Shared by every kind of loop, so the virtual-time loop tests the
/// same code the epoll loop runs.
///
/// A pass, at the time `now` read once at its start (libuv's `uv__run_timers`,
/// SwiftNIO's `tasksCopy`):
/// 1. Apply the requests of other threads, take the queued tasks and every
///    timer due at `now`. A fixed-rate timer is queued again at its next grid
///    point *before* any callback runs, so its callback can cancel or move it.
/// 2. Run the tasks and jobs (one FIFO queue), then the due timers in `(deadline, scheduling order)`.
///    Each timer is checked just before its call: one cancelled or rescheduled
///    by an earlier callback of the same pass, or from another thread by then,
///    does not run. Nothing more runs once the loop is shut down.
/// 3. Work added by those callbacks, even with a zero delay, waits for the next
///    pass, so a callback that schedules itself again cannot starve the loop.
extension TimerScheduler {
  /// A due timer, named by slot and generation.
  struct DueTimer {
    var slot: UInt32
    var generation: UInt32
  }

  /// Scratch space for passes, kept by the loop between passes so that a pass
  /// does not allocate.
  @_spi(TimerLoopHost)
  public struct PassBuffers: ~Copyable {
    var tasks: [Work] = []
    /// The timers a pass collected: `dueCount` of them, in room for
    /// `dueCapacity`. Behind a pointer, not in an array: an append then costs
    /// no uniqueness check, emptying it no call to the array's generic
    /// `removeAll`, and the firing loop no iterator over an array
    /// (figures in Benchmarks/RESULTS.md).
    private(set) var due = UnsafeMutablePointer<DueTimer>(
      bitPattern: MemoryLayout<DueTimer>.alignment)!
    private(set) var dueCount = 0
    private var dueCapacity = 0

    /// Empty buffers; they grow in the first passes that need room.
    public init() {}

    deinit {
      if dueCapacity > 0 { free(due) }
    }

    mutating func appendDue(_ timer: DueTimer) {
      if dueCount == dueCapacity {
        UnsafeMutablePointer.growByDoubling(&due, capacity: &dueCapacity, of: "due timers")
      }
      due[dueCount] = timer
      dueCount += 1
    }

    /// Empties both buffers, keeping room for up to `keptCapacity` elements.
    mutating func removeAll() {
      // Swapped with the table's queue each pass, so this bounds both. Most
      // passes run no task: the array's removeAll, even of an empty array,
      // costs a uniqueness check and a generic replaceSubrange call.
      if tasks.capacity > TimerScheduler.keptCapacity {
        tasks = []
      } else if !tasks.isEmpty {
        tasks.removeAll(keepingCapacity: true)
      }
      dueCount = 0
      if dueCapacity > TimerScheduler.keptCapacity {
        free(due)
        due = UnsafeMutablePointer(bitPattern: MemoryLayout<DueTimer>.alignment)!
        dueCapacity = 0
      }
    }
  }

  /// Runs one pass at `now`. Loop thread only.
  /// - Returns: what ran, and how late the earliest due timer was.
  @_spi(TimerLoopHost)
  public func runPass(now: Deadline, buffers: inout PassBuffers) -> PassOutcome {
    applyPendingRequests()
    swap(&buffers.tasks, &table.pointee.tasks)
    var outcome = PassOutcome()
    // One call site of popFirst, so that it stays inlined.
    while let slot = table.pointee.queue.popFirst(dueAt: now) {
      if buffers.dueCount == 0 {
        // Read before collecting: a fixed-rate timer's row then holds its next deadline.
        outcome.lateness = now.timeAmount(since: table.pointee.queue.deadline(of: slot))
      }
      table.pointee.collect(slot, now: now)
      buffers.appendDue(
        DueTimer(slot: slot, generation: table.pointee[entry: slot].generation))
    }
    defer { buffers.removeAll() }
    for index in buffers.tasks.indices {
      // Before every callback, so that the closure of a timer cancelled from
      // another thread meanwhile is released before anything else runs.
      applyPendingRequests()
      guard !isShutdown else {
        // Jobs cannot be dropped (their tasks would leak): back to the front
        // of the queue, ahead of later work, for releaseTable() to retire.
        table.pointee.tasks.insert(contentsOf: buffers.tasks[index...].filter(\.isJob), at: 0)
        break
      }
      switch buffers.tasks[index] {
      case .closure(let task): task()
      case .job(let job, let kind): run(job, kind)
      }
      outcome.tasksRun += 1
    }
    for index in 0..<buffers.dueCount where !isShutdown && fire(buffers.due[index]) {
      outcome.timersFired += 1
    }
    return outcome
  }

  /// Runs one collected timer if it is still meant to run. Returns whether it ran.
  private func fire(_ timer: DueTimer) -> Bool {
    // The admission window: see `admitting`. Inside it the loop applies any
    // request already sent, then decides; a cancel sent later waits for the
    // window to close, by which time the call has started.
    admitting.store(true, ordering: .sequentiallyConsistent)
    let applied = applyPendingRequests()
    // A shutdown drops the cancels still in the inbox: none may be admitted
    // past, so the flag is read inside the window too.
    let body = isShutdownFlag.load(ordering: .sequentiallyConsistent) ? nil : admit(timer)
    admitting.store(false, ordering: .releasing)
    // Released after the window (see AppliedRequests) and before the call: a
    // closure cancelled from another thread goes before anything else runs.
    _ = consume applied
    guard let body = consume body else { return false }
    call(body, timer)
    // A callback that shut a virtual loop down released the table: `finish`
    // then finds the timer ended, and drops the body.
    finish(timer, body: body)
    return true
  }

  /// Calls a timer's closure or handler. The body is borrowed: switching
  /// over an owned one copied the payload, a retain and a release per firing.
  /// A registered handler is held through the call by the caller's body, which
  /// stands for one of its timers (see ``TimerBody/handler(_:)``).
  private func call(_ body: borrowing TimerBody, _ timer: DueTimer) {
    switch body {
    case .once(let closure):
      closure()
    case .repeating(let closure):
      closure(
        TimerHandle(scheduler: self, id: .local(slot: timer.slot, generation: timer.generation)))
    case .handler(let handlerTimer):
      let release = table.pointee.release
      let handler = table.pointee.handlers.take(handlerTimer.index)
      handler.timerFired(tag: handlerTimer.tag)
      // Into the registry it was taken from, unless the table was released
      // meanwhile: the handler is then dropped with this call.
      if table.pointee.release == release {
        table.pointee.handlers.putBack(handler, at: handlerTimer.index)
      }
    case .object(let handler):
      handler.timerFired(tag: UInt64(bitPattern: table.pointee.extra(timer.slot)))
    }
  }

  /// Takes the body of a collected timer out for its call (not copied: a copy
  /// costs a retain and a release per firing; `finish` puts it back if the
  /// timer goes on), or returns `nil` if the timer has ended, moved or been
  /// cancelled since it was collected.
  private func admit(_ timer: DueTimer) -> TimerBody? {
    guard table.pointee.isLive(timer.slot, generation: timer.generation),
      table.pointee[entry: timer.slot].firePending
    else { return nil }
    table.pointee[entry: timer.slot].firePending = false
    return table.pointee[entry: timer.slot].body.take()
  }

  /// After a call: a one-shot that did not reschedule itself ends; a
  /// fixed-delay timer that was not cancelled or moved is queued one interval
  /// after its callback returned, a burst one one interval after the deadline
  /// it was due at, or later if it owes more than
  /// ``MissedTickBehavior/burstBacklogLimit`` ticks (fixed-rate timers were
  /// queued when collected); a kept timer not armed again stays disarmed; a
  /// timer that goes on gets its body back. The body of one that ended is released
  /// after the table changes.
  private func finish(_ timer: DueTimer, body: consuming TimerBody) {
    guard table.pointee.isLive(timer.slot, generation: timer.generation) else {
      _ = table.pointee.release(body)
      return
    }
    if table.pointee[entry: timer.slot].phase == .unqueued {
      switch table.pointee[entry: timer.slot].mode {
      case .oneShot:
        table.pointee.retire(timer.slot)
        _ = table.pointee.release(body)
        return
      case .fixedDelay:
        table.pointee.requeue(
          timer.slot, at: now + TimeAmount(nanoseconds: table.pointee.extra(timer.slot)))
      case .burst:
        // The row still holds the deadline the timer was due at.
        let interval = table.pointee.extra(timer.slot)
        let next = table.pointee.queue.deadline(of: timer.slot) + TimeAmount(nanoseconds: interval)
        table.pointee.requeue(
          timer.slot,
          at: Deadline(
            uptimeNanoseconds: next.uptimeNanoseconds.burstBacklogCapped(
              now: now.uptimeNanoseconds, interval: interval)))
      case .fixedRate, .kept:
        break
      }
    }
    table.pointee[entry: timer.slot].body = body
  }
}
