// swift-format-ignore-file
// The example of the article "Handler timers" (HandlerTimers.md), verbatim;
// DocExamplesAreCompiledTests checks that it still matches.
import TimerLoop

struct HandlerTimersArticle {
  /// One handler for every connection's idle timeout, told apart by tag.
  final class IdleTimeouts: TimerHandler {
    func timerFired(tag: UInt64) { print("connection \(tag) idle") }   // on the loop thread
  }

  func handlerTimers(on loop: any TimerEventLoop) throws {
    let timeouts = IdleTimeouts()

    // Per connection: made once (kept, disarmed), re-armed on every request.
    let idleTimer = try loop.makeTimer(handler: timeouts, tag: 7)
    loop.arm(idleTimer, after: .seconds(30))   // arms it, or moves it if armed
    loop.arm(idleTimer, after: .seconds(30))   // the next request
    loop.disarm(idleTimer)                     // stays, to be armed again
    loop.invalidate(idleTimer)                 // ends it; the key goes stale

    // The bulk form: one-shots that end when they fire, told apart by their tags.
    for connection in 0..<1_000 {
      try loop.schedule(after: .seconds(2), handler: timeouts, tag: UInt64(connection))
    }
  }
}
