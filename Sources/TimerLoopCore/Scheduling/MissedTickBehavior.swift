/// What a repeating timer (``TimerEventLoop/scheduleRepeating(firstAt:every:missedTicks:_:)-(Deadline,_,_,_)``)
/// or a ``TickSequence`` does after a tick was missed: its time passed while
/// the loop was busy, the callback ran long, or the consumer of the ticks was
/// busy. Named and defined after tokio's `MissedTickBehavior`. None of them
/// ever fires early; they differ only after a missed tick.
///
/// A repeating timer every 10 ms from 0, on a loop busy from 12 ms to 35 ms
/// (the ticks due at 20 and 30 ms are missed):
///
/// ```text
/// time (ms)   0         10        20        30        40        50
/// busy                    .......................
/// .skip       x         x                        x    x         x  0, 10, 35 (once for 20 and 30), 40, 50
/// .burst      x         x                        xx   x         x  0, 10, 35 (for 20), 35 (for 30, next pass), 40, 50
/// .delay      x         x                        x         x         x  0, 10, 35, 45, 55
/// ```
///
/// A ``TickSequence`` applies it, as tokio's `Interval` does, to a tick
/// delivered more than 5 ms after it was due (the loop fired its timer late,
/// or the consumer asked late). Ticks every 10 ms from 0, and a consumer busy
/// from 10 ms to 45 ms, which asks for the tick of 20 ms at 45 ms and gets it
/// at once; then `.skip` gives 50, 60, ...; `.burst` gives 30 and 40 at once,
/// then 50, 60, ...; `.delay` gives 55, 65, ...
public enum MissedTickBehavior: Sendable, Hashable {
  /// Every missed tick is delivered, as soon as possible, until the timer is
  /// back on its grid `first + n × interval`: a repeating timer gets one
  /// call per pass of the loop for each missed tick (so other work runs
  /// between them), a tick sequence one tick per request. tokio's `Burst`
  /// (tokio's default). For counters and rate-based work that must see
  /// every tick, however late. Ticks due before a repeating timer was
  /// scheduled were not missed: a first deadline already past runs once, in
  /// the next pass, for the last point of its grid not after the time of
  /// scheduling, where tokio would call for every period since (from a
  /// deadline long past, a busy loop for as long).
  ///
  /// At most the latest 1,000 missed ticks are paid back: when a call
  /// returns (or a tick is delivered) with more of the grid passed, the
  /// earlier ones are dropped, as ``skip`` drops them all, and the last
  /// 1,000 run before the timer is on its grid again. tokio has no bound: a
  /// host suspended for hours would owe a 1 ms timer millions of
  /// back-to-back calls (a virtual loop stalled a year, a 0.1 ms one
  /// 3 × 10^11), a loop that never catches up. A thousand covers a second
  /// of 1 ms ticks, more than a stalled callback or a paused process
  /// usually costs, and bounds the catching up to a thousand short passes.
  case burst
  /// The next tick is one interval after the last one was delivered. A
  /// repeating timer's next deadline is one interval after its callback
  /// *returned*, after every call, late or not, so its period stretches by
  /// the callback's run time and any lateness: SwiftNIO's
  /// `scheduleRepeatedTask` (fixed delay). tokio's `Delay` differs in when
  /// it starts a new grid: only after a missed tick, and from the moment the
  /// late tick was delivered, keeping to the grid while ticks are on time; a
  /// tick sequence does exactly that (the time of the request stands for the
  /// callback's return). For polls and retries that must leave a gap after
  /// each attempt.
  case delay
  /// The first missed tick is delivered at once and the rest are dropped;
  /// then the grid `first + n × interval` goes on: one call for however
  /// many ticks were missed. Apple's `Timer` ("fires only once ... for
  /// missed periods") and tokio's `Skip`. The default here, as for Apple's
  /// `Timer`: for clocks, animations, sampling, and anything whose ticks
  /// stand for points in time.
  case skip
}

extension MissedTickBehavior {
  /// How many missed ticks a ``MissedTickBehavior/burst`` timer or tick
  /// sequence still pays back, at most: the latest ones (see
  /// ``MissedTickBehavior/burst``).
  static let burstBacklogLimit = 1_000
}

extension Int64 {
  /// A burst timer's first deadline, in nanoseconds on its clock, when it is
  /// scheduled at `now`: the last point of the grid `self + n × interval`
  /// (n ≥ 0) not after `now`, or `self` if that is still to come (see
  /// ``MissedTickBehavior/burst``). The distance is unsigned: from long
  /// before the clock's epoch it does not fit an `Int64`. `interval` > 0.
  func burstStart(now: Int64, interval: Int64) -> Int64 {
    guard now > self else { return self }
    let distance = UInt64(bitPattern: now &- self)
    return self &+ Int64(bitPattern: distance - distance % UInt64(interval))
  }

  /// A burst timer's or tick sequence's next deadline at `now`, in
  /// nanoseconds on its clock, when its next grid point is `self`: `self`,
  /// unless more than ``MissedTickBehavior/burstBacklogLimit`` points of the
  /// grid `self + n × interval` are not after `now`; then the earliest of the
  /// last that many, the earlier ones dropped. An on-time tick (`self` after
  /// `now`) costs one comparison. `interval` > 0.
  func burstBacklogCapped(now: Int64, interval: Int64) -> Int64 {
    guard now >= self else { return self }
    let distance = UInt64(bitPattern: now &- self)
    let step = UInt64(interval)
    // The points after `self` not after `now`: the backlog is one more.
    let later = distance / step
    let limit = UInt64(MissedTickBehavior.burstBacklogLimit)
    guard later >= limit else { return self }
    return self &+ Int64(bitPattern: (later - (limit - 1)) * step)
  }
}
