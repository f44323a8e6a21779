// swift-tools-version: 6.1
// libFuzzer targets for navd's parsers. Built by scripts/fuzz with `-sanitize=fuzzer,address` on every Swift
// module, so that libFuzzer's coverage reaches the code under test; each target's main hands its input
// function to libFuzzer (FuzzDriver). docs/reliability.md says how to run them and what they found.
import PackageDescription

let package = Package(
    name: "navd-fuzz",
    dependencies: [.package(name: "navd", path: "..")],
    targets: [
        .target(name: "FuzzDriver"),
        // NMEA bytes (any framing) through the epoch assembler, as a serial receiver's stream.
        .executableTarget(name: "FuzzNMEA", dependencies: ["FuzzDriver", .product(name: "NMEA", package: "navd")]),
        // A socket line through the command decoder: JSON line to typed command, for a peer with control.
        .executableTarget(
            name: "FuzzCommand",
            dependencies: ["FuzzDriver", .product(name: "NavigationProtocol", package: "navd"), .product(name: "NavigationDaemon", package: "navd")]),
        // A routing server's answer through the response parser, and the parsed route into the controller.
        .executableTarget(
            name: "FuzzRouteResponse",
            dependencies: ["FuzzDriver", .product(name: "RouteAdapters", package: "navd"), .product(name: "NavigationCore", package: "navd")]),
        // A navd.toml through the config loader (TOML parse and every key's check).
        .executableTarget(name: "FuzzConfig", dependencies: ["FuzzDriver", .product(name: "NavigationDaemon", package: "navd")]),
        // A track file through the GPX / JSON / JSON Lines / gpsd JSON readers.
        .executableTarget(name: "FuzzTrack", dependencies: ["FuzzDriver", .product(name: "TrackFormats", package: "navd")]),
        // A trip journal's bytes through the journal reader.
        .executableTarget(name: "FuzzJournal", dependencies: ["FuzzDriver", .product(name: "NavigationDaemon", package: "navd")]),
        // A recording through the daemon replay, the drive report and the typed decoder of navd's lines.
        .executableTarget(
            name: "FuzzRecording",
            dependencies: [
                "FuzzDriver", .product(name: "NavigationDaemon", package: "navd"), .product(name: "NavigationProtocol", package: "navd"),
                .product(name: "DriveReport", package: "navd"),
            ]),
    ]
)
