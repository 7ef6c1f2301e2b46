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
/// the loop shuts down. It holds the loop weakly.
///
/// Lock order: an object's own lock may be taken inside `members`' (a
/// shutdown ends each scheduled ``BlockTimer`` under it), and `clocks` inside
/// an object's; never the other way round.
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
        width = loop.now.timeAmount(since: before)
        deadline = before + width / 2
      }
    }

    /// How far the wall clock has moved against the loop's clock since this
    /// anchor, in nanoseconds, going by a later pair of readings.
    func drift(date later: Date, deadline: Deadline) -> Double {
      abs(
        Double(deadline.timeAmount(since: self.deadline).nanoseconds)
          - later.timeIntervalSince(date) * 1e9)
    }
  }

  private struct Clocks {
    var anchor: Anchor
    /// The loop's time when the anchor was last checked.
    var checkedAt: Deadline
  }

  private struct WeakMember {
    weak var member: (any LoopMember)?
  }

  private struct Members {
    /// The other objects of this module on the loop, held weakly.
    var objects: [ObjectIdentifier: WeakMember] = [:]
    /// The first of the scheduled ``BlockTimer``s, listed through their own
    /// links: listing and unlisting one costs no allocation and no weak
    /// reference (which would give each timer a side table).
    unowned(unsafe) var firstTimer: BlockTimer?
    var isShutDown = false
  }

  /// How far the wall clock may move against the loop's clock before the
  /// anchor is read again: a clock step, a suspended machine, or a
  /// `VirtualEventLoop` whose time was advanced. Far above the jitter of
  /// reading two clocks one after the other.
  static let maximumDriftNanoseconds: Double = 1e6

  /// How far the loop's clock moves between checks of the anchor: a
  /// conversion within it of the last check uses the anchor as it is, with
  /// no reading of the wall clock. The drift allowed is as large, so a step
  /// of the wall clock is found within twice the drift allowed.
  static let checkInterval = TimeAmount.milliseconds(1)

  /// Weak: a timer never keeps its loop object alive.
  weak let loop: (any TimerEventLoop)?
  private let clocks: Locked<Clocks>
  private let members = Locked(Members())

  private init(_ loop: any TimerEventLoop) {
    self.loop = loop
    let anchor = Anchor(reading: loop)
    clocks = Locked(Clocks(anchor: anchor, checkedAt: anchor.deadline))
  }

  /// The context of `loop`, made the first time it is asked for.
  static func of(_ loop: any TimerEventLoop) -> LoopContext {
    loop.scheduler.attachment { LoopContext(loop) }
  }

  // MARK: Dates

  /// `date` on the loop's clock: the deadline as far from the anchor's as
  /// `date` is from the anchor's date (rounded up to a nanosecond,
  /// saturating), so equal dates give equal deadlines. `nil` for a NaN date.
  /// `now`, the loop's time when given, checks the anchor first.
  func deadline(for date: Date, now: Deadline?) -> Deadline? {
    let anchor = anchor(checkedAt: now)
    guard let offset = try? TimeAmount(seconds: date.timeIntervalSince(anchor.date)) else {
      return nil
    }
    return anchor.deadline + offset
  }

  /// The date of `deadline`: the inverse of ``deadline(for:now:)``.
  /// ``Deadline/distantFuture`` is `Date.distantFuture`.
  func date(for deadline: Deadline, now: Deadline?) -> Date {
    guard deadline != .distantFuture else { return .distantFuture }
    let anchor = anchor(checkedAt: now)
    return anchor.date.addingTimeInterval(deadline.timeAmount(since: anchor.deadline).seconds)
  }

  /// The anchor, checked first if the loop's clock has moved by
  /// ``checkInterval`` since the last check: read again if the wall clock
  /// has not moved with it (within ``maximumDriftNanoseconds``). A frozen
  /// virtual clock keeps its anchor, so a burst of conversions in one virtual
  /// instant all use the same one.
  private func anchor(checkedAt now: Deadline?) -> Anchor {
    clocks.withLock { clocks in
      guard let now,
        now.timeAmount(since: clocks.checkedAt) >= Self.checkInterval || now < clocks.checkedAt,
        let loop
      else { return clocks.anchor }
      clocks.checkedAt = now
      // One reading of the wall clock against `now` tells a steady clock;
      // only a drift (or a preemption between the reads) costs a careful one.
      guard clocks.anchor.drift(date: Date(), deadline: now) > Self.maximumDriftNanoseconds else {
        return clocks.anchor
      }
      let fresh = Anchor(reading: loop)
      if clocks.anchor.drift(date: fresh.date, deadline: fresh.deadline)
        > Self.maximumDriftNanoseconds
      {
        clocks.anchor = fresh
      }
      clocks.checkedAt = fresh.deadline
      return clocks.anchor
    }
  }

  // MARK: Members

  /// Records `member` to be ended when the loop shuts down; `false` (and
  /// nothing recorded) if it has already. Held weakly. O(1) amortised.
  func register(_ member: any LoopMember) -> Bool {
    members.withLock { members in
      guard !members.isShutDown else { return false }
      members.objects[ObjectIdentifier(member)] = WeakMember(member: member)
      return true
    }
  }

  /// Forgets `member`. O(1).
  func unregister(_ member: any LoopMember) {
    _ = members.withLock { $0.objects.removeValue(forKey: ObjectIdentifier(member)) }
  }

  /// Lists a scheduled `timer`, to be ended when the loop shuts down; `false`
  /// (and nothing listed) if it has already. Not retained: the timer unlists
  /// itself when it ends or is released. O(1), no allocation.
  func register(_ timer: BlockTimer) -> Bool {
    members.withLock { members in
      guard !members.isShutDown else { return false }
      // One that ended before it was listed (a one-shot the loop fired
      // first) is not: nothing would unlist it.
      guard !timer.isRegistered.load(ordering: .relaxed), timer.isValid else { return true }
      timer.registryNext = members.firstTimer
      timer.registryPrevious = nil
      members.firstTimer?.registryPrevious = timer
      members.firstTimer = timer
      timer.isRegistered.store(true, ordering: .relaxed)
      return true
    }
  }

  /// Unlists `timer`, if it is listed. O(1).
  func unregister(_ timer: BlockTimer) {
    members.withLock { members in
      guard timer.isRegistered.load(ordering: .relaxed) else { return }
      if let previous = timer.registryPrevious {
        previous.registryNext = timer.registryNext
      } else {
        members.firstTimer = timer.registryNext
      }
      timer.registryNext?.registryPrevious = timer.registryPrevious
      timer.registryNext = nil
      timer.registryPrevious = nil
      timer.isRegistered.store(false, ordering: .relaxed)
    }
  }

  /// Ends every member. The listed timers end under the lock, without being
  /// retained: one the loop is releasing waits in its `deinit` to unlist
  /// itself meanwhile. Their blocks, and the other members, are released or
  /// told outside it: ending one releases closures whose `deinit` may
  /// register or unregister others.
  func loopDidShutDown() {
    let (objects, blocks): ([WeakMember], [Any]) = members.withLock { members in
      members.isShutDown = true
      var blocks: [Any] = []
      while let timer = members.firstTimer {
        members.firstTimer = timer.registryNext
        timer.registryNext = nil
        timer.registryPrevious = nil
        if let block = timer.endForShutdown() { blocks.append(block) }
        // Last: a `deinit` that reads it cleared does not wait for the lock,
        // and frees the timer.
        timer.isRegistered.store(false, ordering: .releasing)
      }
      defer { members.objects = [:] }
      return (Array(members.objects.values), blocks)
    }
    for entry in objects { entry.member?.loopDidShutDown() }
    _ = blocks
  }
}
