// swift-format-ignore-file
// The example of the article "Observability" (Observability.md), verbatim;
// DocExamplesAreCompiledTests checks that it still matches.
import TimerLoop

struct ObservabilityArticle {
  /// Logs every pass that kept the loop busy for more than 5 ms.
  final class SlowPassLog: EventLoopMetricsDelegate {
    func processedPass(info: EventLoopPassInfo) {   // on the loop thread, after each pass
      if info.busy > .milliseconds(5) { print("slow pass: \(info.timersFired) timers in \(info.busy)") }
    }
  }

  func observedLoop() throws -> EpollEventLoop {
    let loop = try EpollEventLoop.startOnNewThread(metricsDelegate: SlowPassLog())
    loop.onTermination { error in print("the loop stopped: \(error)") }
    let stats = loop.stats   // from any thread
    print(stats.passes, stats.wakeUps, stats.liveTimers, stats.latenessHistogram)
    return loop
  }
}
