import Foundation
import Synchronization
import TimerLoop

/// An object of this module that runs on a loop and ends when the loop shuts down.
protocol LoopMember: AnyObject, Sendable {
  /// Ends the object as its own `invalidate()` or `cancel()` would. Called at
  /// most once, on the thread that shut the loop down, before the
  /// `shutdown()` call that did it returns (a concurrent second call does
  /// not wait for it).
  func loopDidShutDown()
}

/// What this module keeps per loop, attached to the loop's scheduler: the one
/// mapping between `Date` and the loop's clock, and the objects to end when
/// the loop shuts down. It holds no reference to the loop.
final class LoopContext: LoopAttachment {
  /// A wall-clock date and the loop's clock, read together.
  private struct Anchor {
    var date: Date
    var deadline: Deadline

    /// The date is read first, so a pause between the two reads can only map
    /// a date to a later deadline, never an earlier one.
    /// Reads the two clocks as close together as it can: `Date()` between
    /// two readings of the loop's clock, keeping the closest of a few tries.
    /// A thread preempted between a lone pair of reads would pair them
    /// wrongly by the whole preemption (milliseconds on a busy machine), past
    /// `LoopContext.maximumDriftNanoseconds`: the next conversion would then
    /// take the skewed pair as its anchor and move every date by that much.
    init(reading loop: any TimerEventLoop) {
      var best = Sample(loop)
      for _ in 1..<Self.tries where best.width > Self.closeEnough {
        let next = Sample(loop)
        if next.width < best.width { best = next }
      }
      date = best.date
      deadline = best.deadline
    }

    private static let tries = 4
    private static let closeEnough = TimeAmount.microseconds(20)

    /// `Date()` read between two readings of the loop's clock, paired with
    /// their middle; `width` is how far apart they were.
    private struct Sample {
      let date: Date
      let deadline: Deadline
      let width: TimeAmount

      init(_ loop: any TimerEventLoop) {
        let before = loop.now
        date = Date()
        width = loop.now - before
        deadline = before + width / 2
      }
    }
  }

  private struct WeakMember {
    weak var member: (any LoopMember)?
  }

  private struct State {
    var anchor: Anchor
    var members: [ObjectIdentifier: WeakMember] = [:]
    var isShutDown = false
  }

  /// How far the wall clock may move against the loop's clock before the
  /// anchor is read again: a clock step, a suspended machine, or a
  /// `VirtualEventLoop` whose time was advanced. Far above the jitter of
  /// reading two clocks one after the other.
  static let maximumDriftNanoseconds: Double = 1e6

  private let state: Locked<State>

  private init(anchor: Anchor) {
    state = Locked(State(anchor: anchor))
  }

  /// The context of `loop`, made the first time it is asked for.
  static func of(_ loop: any TimerEventLoop) -> LoopContext {
    loop.scheduler.attachment { LoopContext(anchor: Anchor(reading: loop)) }
  }

  // MARK: Dates

  /// `date` on the loop's clock: the deadline as far from the anchor's as
  /// `date` is from the anchor's date (rounded up to a nanosecond, saturating),
  /// so equal dates give equal deadlines. `nil` for a NaN date. `loop`, when
  /// given, is read to check the anchor first.
  func deadline(for date: Date, on loop: (any TimerEventLoop)?) -> Deadline? {
    let anchor = checkedAnchor(loop)
    guard let offset = try? TimeAmount(seconds: date.timeIntervalSince(anchor.date)) else {
      return nil
    }
    return anchor.deadline + offset
  }

  /// The date of `deadline`: the inverse of ``deadline(for:on:)``.
  /// ``Deadline/distantFuture`` is `Date.distantFuture`.
  func date(for deadline: Deadline, on loop: (any TimerEventLoop)?) -> Date {
    guard deadline != .distantFuture else { return .distantFuture }
    let anchor = checkedAnchor(loop)
    return anchor.date.addingTimeInterval((deadline - anchor.deadline).seconds)
  }

  /// The anchor, read again first if the loop's clock has moved since it was
  /// taken and the wall clock has not moved with it (within
  /// ``maximumDriftNanoseconds``). A frozen virtual clock keeps its anchor, so
  /// a burst of conversions in one virtual instant all use the same one.
  private func checkedAnchor(_ loop: (any TimerEventLoop)?) -> Anchor {
    guard let loop else { return state.withLock { $0.anchor } }
    let fresh = Anchor(reading: loop)
    return state.withLock { state in
      let anchor = state.anchor
      let loopMoved = Double((fresh.deadline - anchor.deadline).nanoseconds)
      let wallMoved = fresh.date.timeIntervalSince(anchor.date) * 1e9
      if fresh.deadline != anchor.deadline,
        abs(loopMoved - wallMoved) > Self.maximumDriftNanoseconds
      {
        state.anchor = fresh
      }
      return state.anchor
    }
  }

  // MARK: Members

  /// Records `member` to be ended when the loop shuts down; `false` (and
  /// nothing recorded) if it has already. Held weakly. O(1) amortised.
  func register(_ member: any LoopMember) -> Bool {
    state.withLock { state in
      guard !state.isShutDown else { return false }
      state.members[ObjectIdentifier(member)] = WeakMember(member: member)
      return true
    }
  }

  /// Forgets `member`. O(1).
  func unregister(_ member: any LoopMember) {
    _ = state.withLock { $0.members.removeValue(forKey: ObjectIdentifier(member)) }
  }

  /// Ends every member, outside the lock: ending one releases closures whose
  /// `deinit` may register or unregister others.
  func loopDidShutDown() {
    let members = state.withLock { state in
      state.isShutDown = true
      defer { state.members = [:] }
      return Array(state.members.values)
    }
    for entry in members { entry.member?.loopDidShutDown() }
  }
}
