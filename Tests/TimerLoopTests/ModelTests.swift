import Synchronization
import Testing

import TimerLoop
@_spi(TimerLoopHost) @testable import TimerLoopCore
@testable import TimerLoopEpoll
@testable import TimerLoopFoundation

/// The virtual-time loop against a plain reference model of the timer rules:
/// a list of timers and a clock, stepped pass by pass. Seeded random sequences
/// of schedule, cancel, reschedule and advance (including callbacks that
/// cancel a sibling, and stalls that make timers late) must produce the same
/// calls, in the same order, at the same times.
@Suite struct ModelTests {
  /// What a random sequence does, replayed identically on the loop and the model.
  enum Operation: CustomStringConvertible {
    /// A one-shot whose callback may cancel `victim` and then schedule a new
    /// one-shot `spawn` units later (spawned timers are numbered from 100,000
    /// in the order they are made).
    case oneShot(id: Int, delay: Int64, victim: Int?, spawn: Int64?)
    case repeating(id: Int, delay: Int64, interval: Int64, policy: MissedTickBehavior)
    case cancel(id: Int)
    case reschedule(id: Int, delay: Int64)
    case advance(Int64)
    /// The loop is busy for a while: time passes and nothing runs.
    case stall(Int64)

    var description: String {
      switch self {
      case .oneShot(let id, let delay, let victim, let spawn):
        "oneShot(\(id), +\(delay)\(victim.map { ", cancels \($0)" } ?? "")\(spawn.map { ", spawns +\($0)" } ?? ""))"
      case .repeating(let id, let delay, let interval, let policy):
        "repeating(\(id), +\(delay), every \(interval), \(policy))"
      case .cancel(let id): "cancel(\(id))"
      case .reschedule(let id, let delay): "reschedule(\(id), +\(delay))"
      case .advance(let amount): "advance(\(amount))"
      case .stall(let amount): "stall(\(amount))"
      }
    }
  }

  /// A call as both sides record it: which timer, at which time (in units).
  struct Call: Equatable, CustomStringConvertible {
    var id: Int
    var time: Int64
    var description: String { "\(id)@\(time)" }
  }

  /// Time unit: 0.1 ms, the shortest repeat interval, so clamping never applies.
  static let unit: Int64 = 100_000

  static func generate(seed: UInt64, count: Int) -> [Operation] {
    var rng = TimerWheelTests.SplitMix64(state: seed)
    var operations: [Operation] = []
    var ids = 0
    for _ in 0..<count {
      let existing = ids > 0 ? Int.random(in: 0..<ids, using: &rng) : nil
      switch Int.random(in: 0..<10, using: &rng) {
      case 0..<3:
        let victim = Bool.random(using: &rng) ? existing : nil
        let spawn: Int64? = Bool.random(using: &rng) ? .random(in: 0...3, using: &rng) : nil
        operations.append(
          .oneShot(id: ids, delay: .random(in: -1...6, using: &rng), victim: victim, spawn: spawn))
        ids += 1
      case 3:
        operations.append(
          .repeating(
            id: ids, delay: .random(in: 0...4, using: &rng),
            interval: .random(in: 1...4, using: &rng),
            policy: [.skip, .delay, .burst].randomElement(using: &rng)!))
        ids += 1
      case 4 where existing != nil:
        operations.append(.cancel(id: existing!))
      case 5 where existing != nil:
        operations.append(.reschedule(id: existing!, delay: .random(in: 0...6, using: &rng)))
      case 6:
        operations.append(.stall(.random(in: 1...9, using: &rng)))
      default:
        operations.append(.advance(.random(in: 0...5, using: &rng)))
      }
    }
    operations.append(.advance(40))
    return operations
  }

  /// Runs the operations on a `VirtualEventLoop`.
  static func runOnLoop(_ operations: [Operation]) throws -> [Call] {
    let loop = VirtualEventLoop()
    defer { loop.shutdown() }
    let start = loop.now
    let calls = EventLog<Call>()
    var handles: [Int: TimerHandle] = [:]
    let shared = Locked<[Int: TimerHandle]>([:])
    let spawned = Locked(0)
    let time: @Sendable () -> Int64 = { (loop.now - start).wholeNanoseconds / unit }
    for operation in operations {
      switch operation {
      case .oneShot(let id, let delay, let victim, let spawn):
        handles[id] = try loop.schedule(after: .nanoseconds(delay * unit)) {
          calls.append(Call(id: id, time: time()))
          if let victim { shared.withLock { $0[victim] }?.cancel() }
          if let spawn {
            let child = spawned.withLock { count in
              defer { count += 1 }
              return 100_000 + count
            }
            _ = try? loop.schedule(after: .nanoseconds(spawn * unit)) {
              calls.append(Call(id: child, time: time()))
            }
          }
        }
      case .repeating(let id, let delay, let interval, let policy):
        handles[id] = try loop.scheduleRepeating(
          after: .nanoseconds(delay * unit), every: .nanoseconds(interval * unit), missedTicks: policy
        ) { _ in calls.append(Call(id: id, time: time())) }
      case .cancel(let id):
        handles[id]?.cancel()
      case .reschedule(let id, let delay):
        handles[id]?.reschedule(after: .nanoseconds(delay * unit))
      case .advance(let amount):
        loop.advanceTime(by: .nanoseconds(amount * unit))
      case .stall(let amount):
        loop.stall(for: .nanoseconds(amount * unit))
      }
      shared.withLock { $0 = handles }
    }
    loop.shutdown()
    return calls.all
  }

  /// The reference: every rule of `TimerEventLoop` written out naively.
  static func runOnModel(_ operations: [Operation]) -> [Call] {
    struct Timer {
      var id: Int
      var deadline: Int64
      var order: Int
      var interval: Int64?
      var policy: MissedTickBehavior
      var victim: Int?
      var spawn: Int64?
      var running = false  // a one-shot, .delay or .burst timer between collection and return
    }
    var timers: [Int: Timer] = [:]
    var now: Int64 = 0
    var order = 0
    var calls: [Call] = []
    var spawned = 0
    func nextOrder() -> Int {
      order += 1
      return order
    }
    for operation in operations {
      switch operation {
      case .oneShot(let id, let delay, let victim, let spawn):
        // A negative delay counts as zero.
        timers[id] = Timer(
          id: id, deadline: now + max(delay, 0), order: nextOrder(), interval: nil,
          policy: .skip, victim: victim, spawn: spawn)
      case .repeating(let id, let delay, let interval, let policy):
        timers[id] = Timer(
          id: id, deadline: now + delay, order: nextOrder(), interval: interval, policy: policy)
      case .cancel(let id):
        timers[id] = nil
      case .reschedule(let id, let delay):
        if timers[id] != nil {
          timers[id]!.deadline = now + delay
          timers[id]!.order = nextOrder()
          timers[id]!.running = false
        }
      case .advance(let amount):
        let target = now + amount
        while true {
          let due = timers.values.filter { !$0.running && $0.deadline <= max(now, 0) }
          if due.isEmpty {
            guard let next = timers.values.filter({ !$0.running }).map(\.deadline).min(),
              next <= target
            else { break }
            now = max(now, next)
            continue
          }
          // One pass: collect in (deadline, order), re-queue .skip timers first.
          let collected = due.sorted { ($0.deadline, $0.order) < ($1.deadline, $1.order) }
          var pending = Set(collected.map(\.id))
          for timer in collected {
            if let interval = timer.interval, timer.policy == .skip {
              var next = timer.deadline + interval
              while next <= now { next += interval }
              timers[timer.id]!.deadline = next
              timers[timer.id]!.order = nextOrder()
            } else {
              timers[timer.id]!.running = true
            }
          }
          for timer in collected where pending.contains(timer.id) && timers[timer.id] != nil {
            calls.append(Call(id: timer.id, time: now))
            if let victim = timer.victim {
              timers[victim] = nil
              pending.remove(victim)
            }
            if let spawn = timer.spawn {
              let child = 100_000 + spawned
              spawned += 1
              timers[child] = Timer(
                id: child, deadline: now + spawn, order: nextOrder(), interval: nil,
                policy: .skip)
            }
            guard timers[timer.id] != nil else { continue }
            if timer.interval == nil {
              timers[timer.id] = nil
            } else if timer.policy == .delay {
              timers[timer.id]!.deadline = now + timer.interval!
              timers[timer.id]!.order = nextOrder()
              timers[timer.id]!.running = false
            } else if timer.policy == .burst {
              // The next grid point, even a past one: due again in the next pass.
              timers[timer.id]!.deadline = timer.deadline + timer.interval!
              timers[timer.id]!.order = nextOrder()
              timers[timer.id]!.running = false
            }
          }
        }
        now = max(now, target)
      case .stall(let amount):
        now += amount
      }
    }
    return calls
  }

  /// 10,000 seeds in 20 batches: the batches run in parallel, and the test
  /// log gets a line per batch rather than one per seed. A failure names its seed.
  @Test(arguments: 0..<20)
  func loopMatchesTheModel(batch: UInt64) throws {
    for seed in batch * 500..<(batch + 1) * 500 { try checkSeed(seed) }
  }

  private func checkSeed(_ seed: UInt64) throws {
    let operations = Self.generate(seed: seed, count: 40)
    let expected = Self.runOnModel(operations)
    let actual = try Self.runOnLoop(operations)
    guard actual != expected else { return }
    // Shrink: drop operations one at a time while the difference persists.
    var shrunk = operations
    var index = 0
    while index < shrunk.count - 1 {
      var candidate = shrunk
      candidate.remove(at: index)
      if (try? Self.runOnLoop(candidate)) != Self.runOnModel(candidate) {
        shrunk = candidate
      } else {
        index += 1
      }
    }
    Issue.record(
      """
      seed \(seed): loop \(actual) != model \(expected)
      shrunk to \(shrunk): loop \(try Self.runOnLoop(shrunk)) model \(Self.runOnModel(shrunk))
      """)
  }
}
