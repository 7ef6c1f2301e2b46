// swift-tools-version:6.2
import PackageDescription

let package = Package(
  name: "TimerLoop",
  products: [
    .library(name: "TimerLoop", targets: ["TimerLoop"]),
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
    .target(
      name: "TimerLoop",
      dependencies: ["CShims"],
      swiftSettings: [
        .define("TIMERLOOP_CHECK_INVARIANTS", .when(configuration: .debug)),
        .define("TIMERLOOP_FAULT_INJECTION", .when(configuration: .debug)),
      ]
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
      dependencies: ["TimerLoop"]
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
