// swift-tools-version:6.2
import PackageDescription
import class Foundation.ProcessInfo

// Users get swift-nio from its usual URL. A build that cannot reach a git host
// (this repository's CI) names a directory holding a copy of swift-nio in
// TIMERLOOP_NIO_PATH; with SWIFTCI_USE_LOCAL_DEPS=1 that copy's own manifest
// then takes its dependencies from sibling directories too.
let nio: Package.Dependency =
  if let directory = ProcessInfo.processInfo.environment["TIMERLOOP_NIO_PATH"] {
    .package(path: "\(directory)/swift-nio")
  } else {
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0")
  }

let package = Package(
  name: "TimerLoopNIO",
  products: [
    .library(name: "TimerLoopNIO", targets: ["TimerLoopNIO"]),
    .executable(name: "nio-keepalive-server", targets: ["nio-keepalive-server"]),
    .executable(name: "timerloop-nio-bench", targets: ["timerloop-nio-bench"]),
  ],
  dependencies: [
    .package(name: "TimerLoop", path: "../.."),
    nio,
  ],
  targets: [
    .target(
      name: "TimerLoopNIO",
      dependencies: [
        // The scheduler core only: NIO users do not link the epoll host.
        .product(name: "TimerLoopCore", package: "TimerLoop"),
        .product(name: "NIOCore", package: "swift-nio"),
        // For MultiThreadedEventLoopGroup.currentEventLoop and EmbeddedEventLoop.
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
      ]
    ),
    // The example server: keepalive-server on ServerBootstrap (README.md).
    .executableTarget(
      name: "nio-keepalive-server",
      dependencies: [
        "TimerLoopNIO",
        .product(name: "TimerLoop", package: "TimerLoop"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ]
    ),
    // NIO's timers against TimerLoop's on an NIO loop thread (README.md).
    .executableTarget(
      name: "timerloop-nio-bench",
      dependencies: [
        "TimerLoopNIO",
        .product(name: "TimerLoop", package: "TimerLoop"),
        .product(name: "CAllocationCounter", package: "TimerLoop"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ]
    ),
    .testTarget(
      name: "TimerLoopNIOTests",
      dependencies: [
        "TimerLoopNIO",
        "nio-keepalive-server",
        .product(name: "TimerLoop", package: "TimerLoop"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
