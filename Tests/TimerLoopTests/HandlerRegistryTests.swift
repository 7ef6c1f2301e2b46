import Testing

import TimerLoop

/// The loop holds each handler once, however many timers it serves
/// (``HandlerRegistry``): the handler stays while any of its timers lives, and
/// goes with the last, even when that one ends inside its own call.
@Suite struct HandlerRegistryTests {
  @Test func aHandlerIsHeldUntilItsLastTimerEnds() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    weak var weakHandler: RecordingHandler?
    let kept: TimerKey = try {
      let handler = RecordingHandler()
      weakHandler = handler
      for tag in [1, 2] as [UInt64] {
        try loop.schedule(after: .milliseconds(Int64(tag)), handler: handler, tag: tag)
      }
      return try loop.makeTimer(handler: handler, tag: 3)
    }()
    loop.advanceTime(by: .milliseconds(5))
    #expect(weakHandler?.fired.all == [1, 2], "the kept timer still holds the handler")
    loop.arm(kept, after: .milliseconds(1))
    loop.advanceTime(by: .milliseconds(5))
    #expect(weakHandler?.fired.all == [1, 2, 3])
    loop.invalidate(kept)
    #expect(weakHandler == nil, "its last timer ended")
    // A handler registered again after it was released gets a new entry.
    let again = RecordingHandler()
    try loop.schedule(after: .milliseconds(1), handler: again, tag: 4)
    loop.advanceTime(by: .milliseconds(5))
    #expect(again.fired.all == [4])
  }

  /// A callback that shuts a virtual loop down releases the table, and with
  /// it the registry that held the handler being called: the handler lives
  /// through the call, goes after it, and its other timer, due in the same
  /// pass, does not run. (The first timer of a handler holds it itself; the
  /// registry holds it from the second on.)
  @Test func aCallThatShutsTheLoopDownKeepsItsHandlerUntilItReturns() throws {
    let loop = VirtualEventLoop()
    weak var weakHandler: RecordingHandler?
    try {
      let handler = RecordingHandler()
      weakHandler = handler
      handler.onFire.withLock {
        $0 = { [weak handler] tag in
          guard tag == 1 else { return }
          loop.shutdown()
          #expect(handler != nil, "the handler outlives the table inside its call")
        }
      }
      for tag in [0, 1, 2] as [UInt64] {
        try loop.schedule(after: .milliseconds(1), handler: handler, tag: tag)
      }
    }()
    loop.advanceTime(by: .milliseconds(5))
    #expect(weakHandler == nil)
  }

  /// Handlers that serve one timer each, armed in turn, are each held by
  /// their own timer, and each goes with it.
  @Test func handlersOfOneTimerEachGoWithTheirTimers() throws {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    weak var first: RecordingHandler?
    weak var second: RecordingHandler?
    let keys: [TimerKey] = try {
      let handlers = [RecordingHandler(), RecordingHandler()]
      (first, second) = (handlers[0], handlers[1])
      return try [0, 1, 0, 1].map { try loop.makeTimer(handler: handlers[$0], tag: UInt64($0)) }
    }()
    for key in keys { loop.arm(key, after: .milliseconds(1)) }
    loop.advanceTime(by: .milliseconds(5))
    #expect(first?.fired.all == [0, 0])
    #expect(second?.fired.all == [1, 1])
    loop.invalidate(keys[0])
    loop.invalidate(keys[1])
    loop.invalidate(keys[2])
    #expect(first == nil)
    #expect(second != nil)
    loop.invalidate(keys[3])
    #expect(second == nil)
  }
}
