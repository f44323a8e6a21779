// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "navd",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "NavigationCore", targets: ["NavigationCore"]),
        .library(name: "RouteAdapters", targets: ["RouteAdapters"]),
        .library(name: "RouteClient", targets: ["RouteClient"]),
        .library(name: "TrackFormats", targets: ["TrackFormats"]),
        .library(name: "NMEA", targets: ["NMEA"]),
        .executable(name: "navctl", targets: ["navctl"]),
        .executable(name: "navbench", targets: ["navbench"]),
        .executable(name: "navd", targets: ["navd"]),
        .library(name: "NavigationProtocol", targets: ["NavigationProtocol"]),
        // The client library for navd's socket: what navctl, the tests and a Swift dashboard use.
        .library(name: "NavdClient", targets: ["NavdClient"]),
        // For the fuzzers (Fuzz/): the drive report's reader.
        .library(name: "DriveReport", targets: ["DriveReport"]),
        // For the fuzzers (Fuzz/): the config loader, journal reader and command router live in the daemon.
        .library(name: "NavigationDaemon", targets: ["NavigationDaemon"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
    ],
    targets: [
        // Pure core: models, geometry, polyline codec. No I/O, no clock reads, no randomness.
        .target(name: "NavigationCore"),
        // Request generators and the OSRM-family response parser. Pure: requests are values, parsing is bytes in, routes out.
        .target(name: "RouteAdapters", dependencies: ["NavigationCore", "Guidance"]),
        // What lies ahead of the vehicle: speed alerts from the posted limits, and the road objects of the route.
        // Pure: a route and fixes' values in, decisions out; the coordinator publishes them.
        .target(name: "RoadAhead", dependencies: ["NavigationCore"]),
        // The trip as a driver plans by it: the arrival at the driver's pace, at each stop and the destination.
        // Pure: states' values in, estimates out; the coordinator publishes them.
        .target(name: "TripPlanning", dependencies: ["NavigationCore"]),
        // What navd says and shows on its own in the driver's language and units: per-language data files compiled
        // in (Languages/*.json), rounding of distances per unit system. Pure.
        .target(
            name: "Guidance", dependencies: ["NavigationCore"],
            resources: [
                .embedInCode("Languages/en.json"), .embedInCode("Languages/de.json"), .embedInCode("Languages/fr.json"),
                .embedInCode("Languages/es.json"), .embedInCode("Languages/fi.json"), .embedInCode("Languages/sv.json"),
            ]),
        // What a voice client says and when, from navd's events: priorities, retractions, stale prompts, the
        // voice mode. Pure: events and times in, decisions out; `navctl speak` does the speaking.
        .target(name: "VoiceGuidance", dependencies: ["NavigationCore", "NavigationProtocol"]),
        // Who may open what on navd's web listener, and WebSocket frames as protocol lines. Pure; the NIO edge
        // serves it.
        .target(name: "WebBridge", dependencies: ["NavigationProtocol"]),
        // NMEA 0183: sentence framing, checksums, epoch assembly into fixes, sentence writing. Pure.
        .target(name: "NMEA", dependencies: ["NavigationCore"]),
        // libgps (gpsd's client library) and libserialport, as the system provides them.
        .systemLibrary(name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
        .systemLibrary(name: "CSerialPort", pkgConfig: "libserialport", providers: [.apt(["libserialport-dev"])]),
        // A small C shim over libgps: gps_data_t is 24 KB and gps_send is variadic; Swift sees one small struct.
        .target(name: "CGPSShim", dependencies: ["CGPS"]),
        // GNSS sources at the edge: gpsd, serial NMEA (libserialport or termios), replay.
        // A serial receiver is read on a NIO event loop (the navigation loop's), gpsd on a thread of its own.
        .target(
            name: "LocationSources",
            dependencies: [
                "NavigationCore", "NMEA", "TrackFormats", "CGPSShim", "CSerialPort", "SystemSupport",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // Reading recorded tracks (GPX, JSON coordinate lists). Parsing only: callers read the bytes.
        .target(name: "TrackFormats", dependencies: ["NavigationCore"]),
        // The edge: executes route requests over HTTP, custom providers.
        .target(
            name: "RouteClient",
            dependencies: [
                "NavigationCore", "RouteAdapters", "SystemSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The drive report: a recording's text in, one self-contained HTML page out. Pure.
        .target(name: "DriveReport", dependencies: ["NavigationCore", "NavigationProtocol"]),
        // The socket protocol's messages: commands decoded from JSON lines, events and replies encoded. Pure.
        .target(name: "NavigationProtocol", dependencies: ["NavigationCore", "RouteAdapters", "Guidance"]),
        // A client of navd's socket: connect, hello, typed commands and replies, events as an AsyncSequence, reconnect.
        .target(name: "NavdClient", dependencies: ["NavigationCore", "NavigationProtocol", "SystemSupport"]),
        // Threads, a condition lock and standard streams for the edges: what navd used Foundation for (Thread,
        // NSCondition, FileHandle), so that nothing in navd links Foundation (FoundationEssentials is enough).
        .target(name: "SystemSupport", dependencies: ["CNavdSystem"]),
        // Peer credentials (struct ucred) for the socket server; Glibc hides it behind _GNU_SOURCE.
        .target(name: "CNavdSystem"),
        // The daemon: navigation service, route calculation sessions, socket server, journal, config, sd_notify.
        .target(
            name: "NavigationDaemon",
            dependencies: [
                "WebBridge",
                "NavigationCore", "RoadAhead", "TripPlanning", "Guidance", "RouteAdapters", "RouteClient", "NavigationProtocol", "LocationSources", "NMEA",
                "TrackFormats", "CNavdSystem", "SystemSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            resources: [
                .embedInCode("Web/Dashboard/index.html"), .embedInCode("Web/Dashboard/app.js"), .embedInCode("Web/Dashboard/style.css"),
                .embedInCode("Web/Dashboard/icon.svg"),
            ]
        ),
        // The daemon; started under the name navctl it runs navctl's commands (one binary in the package).
        .executableTarget(
            name: "navd",
            dependencies: [
                "NavigationDaemon", "NavctlCommands", "SystemSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // navctl's commands (client, route tools, simulation, replay, GNSS view), and the navctl executable.
        .target(
            name: "NavctlCommands",
            dependencies: [
                "NavigationCore", "RouteAdapters", "RouteClient", "TrackFormats", "NMEA", "LocationSources", "NavigationProtocol", "NavdClient",
                // replay runs the daemon's own loop logic over a recording.
                "NavigationDaemon", "DriveReport", "SystemSupport", "VoiceGuidance",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "navctl", dependencies: ["NavctlCommands"]),
        .executableTarget(
            name: "navbench",
            dependencies: [
                "NavigationCore", "RouteAdapters", "NMEA", "LocationSources", "NavigationProtocol", "NavigationDaemon", "SystemSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "NavigationCoreTests",
            dependencies: ["NavigationCore", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "RoadAheadTests",
            dependencies: ["RoadAhead", "NavigationCore", "RouteAdapters", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(name: "GuidanceTests", dependencies: ["Guidance", "NavigationCore"]),
        .testTarget(name: "WebBridgeTests", dependencies: ["WebBridge", "NavigationProtocol"]),
        .testTarget(name: "VoiceGuidanceTests", dependencies: ["VoiceGuidance", "NavigationCore", "NavigationProtocol"]),
        .testTarget(
            name: "TripPlanningTests",
            dependencies: ["TripPlanning", "NavigationCore", "RouteAdapters", "TestSupport"]
        ),
        .testTarget(
            name: "RouteAdaptersTests",
            dependencies: ["NavigationCore", "RouteAdapters", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "NMEATests",
            dependencies: ["NavigationCore", "NMEA", .product(name: "PropertyBased", package: "swift-property-based")],
            exclude: ["Fixtures"]
        ),
        // Helpers shared by the tests that run real programs (gpsd, socat, navd).
        .target(name: "TestSupport", dependencies: ["NavigationCore", "NMEA", "RouteAdapters", "RouteClient"], path: "Tests/TestSupport"),
        .testTarget(
            name: "LocationSourcesTests",
            dependencies: [
                "NavigationCore", "NMEA", "LocationSources", "TrackFormats", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "DriveReportTests", dependencies: ["DriveReport", "NavigationCore", "NavigationProtocol"]),
        .testTarget(
            name: "TrackFormatsTests",
            dependencies: ["NavigationCore", "TrackFormats"]
        ),
        .testTarget(
            name: "NavigationControllerTests",
            dependencies: [
                "NavigationCore", "NMEA", "RouteAdapters", "RouteClient", "TrackFormats", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            exclude: ["Snapshots"]
        ),
        // Runs the real navctl binary (depending on it makes `swift test` build it).
        .testTarget(
            name: "NavctlTests",
            dependencies: ["navctl", "NavctlCommands", "NavigationCore", "NavigationProtocol", "TestSupport", "VoiceGuidance"]
        ),
        .testTarget(
            name: "RouteClientTests",
            dependencies: [
                "NavigationCore", "RouteAdapters", "RouteClient", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
            .testTarget(
            name: "NavigationDaemonTests",
            dependencies: [
                "NavigationCore", "RoadAhead", "TripPlanning", "RouteAdapters", "RouteClient", "NavigationProtocol", "NavigationDaemon", "LocationSources",
                "SystemSupport", "TestSupport", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            // Golden recordings of real drives through navd, read by path (Fixtures/Recordings).
            exclude: ["Fixtures"]
        ),
        // navd as a vehicle runs it: its Debian package installed into Debian roots booted with systemd as PID 1
        // (systemd-nspawn), gpsd and the udev rules inside them, and the C shim against a newer libgps.
        .testTarget(name: "SystemTests", dependencies: ["NavigationCore", "NMEA", "TestSupport"], exclude: ["Fixtures"]),
        // Runs the real navd process against real gpsd, ptys and routing engines.
        .testTarget(
            name: "NavdTests",
            dependencies: [
                "navd", "navctl", "NavdClient", "NavigationCore", "NMEA", "NavigationProtocol", "RoadAhead", "RouteAdapters", "RouteClient", "TestSupport",
                "Guidance", "SystemSupport",
            ],
            // Tools the tests run (slowfs.py: slow storage through FUSE), read by path.
            exclude: ["Fixtures"]
        ),
    ]
)
