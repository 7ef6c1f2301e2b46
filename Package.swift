// swift-tools-version:6.2
import PackageDescription

let package = Package(
  name: "TimerLoop",
  products: [
    .library(name: "TimerLoop", targets: ["TimerLoop"]),
    // The scheduler, the virtual loop and the async layer without the epoll
    // host or Foundation: for hosts built outside this package (TimerLoopNIO).
    .library(name: "TimerLoopCore", targets: ["TimerLoopCore"]),
    .library(name: "BlockTimers", targets: ["BlockTimers"]),
    .executable(name: "timerloop-bench", targets: ["timerloop-bench"]),
    .executable(name: "keepalive-server", targets: ["keepalive-server"]),
    // For the benchmarks of this repository's packages (TimerLoopNIO's): a
    // process-wide allocation counter that interposes malloc. Not API.
    .library(name: "CAllocationCounter", targets: ["CAllocationCounter"]),
  ],
  targets: [
    .target(
      name: "CShims",
      path: "CShims",
      cSettings: [.define("_GNU_SOURCE")]
    ),
    // The clock reads of the core (CShims is the epoll host's).
    .target(name: "CClock", path: "CClock"),
    // The scheduler and everything that needs no epoll, timerfd or Foundation.
    .target(
      name: "TimerLoopCore",
      dependencies: ["CClock"],
      swiftSettings: [.define("TIMERLOOP_CHECK_INVARIANTS", .when(configuration: .debug))]
    ),
    // The Linux host: EpollEventLoop and its selector, timerfds and descriptors.
    .target(
      name: "TimerLoopEpoll",
      dependencies: ["CClock", "CShims", "TimerLoopCore"],
      swiftSettings: [.define("TIMERLOOP_FAULT_INJECTION", .when(configuration: .debug))]
    ),
    // The Date and Calendar forms of the wall-clock timers and sleeps.
    .target(
      name: "TimerLoopFoundation",
      dependencies: ["TimerLoopCore"]
    ),
    // The umbrella: re-exports the three, so `import TimerLoop` gives all of them.
    .target(
      name: "TimerLoop",
      dependencies: ["TimerLoopCore", "TimerLoopEpoll", "TimerLoopFoundation"]
    ),
    .target(
      name: "BlockTimers",
      dependencies: ["TimerLoop"]
    ),
    .target(name: "CAllocationCounter"),
    .target(name: "BenchmarkReport"),
    .executableTarget(
      name: "timerloop-bench",
      dependencies: ["TimerLoop", "BlockTimers", "CAllocationCounter", "BenchmarkReport"]
    ),
    .executableTarget(
      name: "keepalive-server",
      dependencies: ["TimerLoop"],
      exclude: ["README.md"]
    ),
    .testTarget(
      name: "TimerLoopTests",
      dependencies: ["TimerLoop", "TimerLoopCore", "TimerLoopEpoll", "TimerLoopFoundation"]
    ),
    .testTarget(
      name: "BlockTimersTests",
      dependencies: ["BlockTimers", "TimerLoop"]
    ),
    .testTarget(
      name: "BenchmarkReportTests",
      dependencies: ["BenchmarkReport"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
