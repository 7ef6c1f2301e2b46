import TimerLoop
import Synchronization
let loop = try EpollEventLoop.startOnNewThread()
let count = Atomic<Int>(0)
let start = Deadline.now()
for i in 0..<100_000 {
  try loop.schedule(after: .microseconds(Int64(i % 1000) * 10)) { count.add(1, ordering: .relaxed) }
}
let r = try loop.scheduleRepeating(after: .milliseconds(1), every: .milliseconds(5)) { h in count.add(1_000_000, ordering: .relaxed) }
while count.load(ordering: .relaxed) < 100_000 + 3_000_000 { }
r.cancel()
print(Deadline.now() - start, count.load(ordering: .relaxed))
loop.shutdown()
print("ok")
