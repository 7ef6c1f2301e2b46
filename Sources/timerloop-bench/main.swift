// timerloop-bench: the workloads of Benchmarks/README.md on TimerLoop, Foundation and Dispatch.
// See `Options.usage` for the command line.
import Glibc

let options: Options
do {
  options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
  printError("timerloop-bench: \(error)\nRun 'timerloop-bench --help' for usage.")
  exit(2)
}
if options.showHelp {
  print(Options.usage, terminator: "")
  exit(0)
}

#if DEBUG
  if !ChildProcess.isChild {
    printError(
      "warning: timerloop-bench was built without optimisation; its numbers mean little."
        + " Build with -c release.")
  }
#endif

let cases = options.cases
if options.runsInProcess {
  do {
    try cases[0].run(timers: options.timers, seconds: options.seconds, leeway: options.leeway)
  } catch {
    printError("timerloop-bench: \(cases[0]) failed: \(error)")
    exit(1)
  }
} else {
  exit(ChildProcess.runAll(cases, options: options) ? 0 : 1)
}
