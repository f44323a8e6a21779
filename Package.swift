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
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        // Pure core: models, geometry, polyline codec. No I/O, no clock reads, no randomness.
        .target(name: "NavigationCore"),
        // Request generators and the OSRM-family response parser. Pure: requests are values, parsing is bytes in, routes out.
        .target(name: "RouteAdapters", dependencies: ["NavigationCore"]),
        // NMEA 0183: sentence framing, checksums, epoch assembly into fixes, sentence writing. Pure.
        .target(name: "NMEA", dependencies: ["NavigationCore"]),
        // libgps (gpsd's client library) and libserialport, as the system provides them.
        .systemLibrary(name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
        .systemLibrary(name: "CSerialPort", pkgConfig: "libserialport", providers: [.apt(["libserialport-dev"])]),
        // A small C shim over libgps: gps_data_t is 24 KB and gps_send is variadic; Swift sees one small struct.
        .target(name: "CGPSShim", dependencies: ["CGPS"]),
        // GNSS sources at the edge: gpsd, serial NMEA (libserialport or termios), replay.
        .target(name: "LocationSources", dependencies: ["NavigationCore", "NMEA", "TrackFormats", "CGPSShim", "CSerialPort"]),
        // Reading recorded tracks (GPX, JSON coordinate lists). Parsing only: callers read the bytes.
        .target(name: "TrackFormats", dependencies: ["NavigationCore"]),
        // The edge: executes route requests over HTTP, custom providers.
        .target(
            name: "RouteClient",
            dependencies: [
                "NavigationCore", "RouteAdapters",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "navctl",
            dependencies: [
                "NavigationCore", "RouteAdapters", "RouteClient", "TrackFormats", "NMEA", "LocationSources",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "navbench",
            dependencies: ["NavigationCore", "RouteAdapters", "NMEA", "LocationSources"]
        ),
        .testTarget(
            name: "NavigationCoreTests",
            dependencies: ["NavigationCore", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "RouteAdaptersTests",
            dependencies: ["NavigationCore", "RouteAdapters", .product(name: "PropertyBased", package: "swift-property-based")],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "NMEATests",
            dependencies: ["NavigationCore", "NMEA", .product(name: "PropertyBased", package: "swift-property-based")],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "LocationSourcesTests",
            dependencies: ["NavigationCore", "NMEA", "LocationSources", "TrackFormats"]
        ),
        .testTarget(
            name: "TrackFormatsTests",
            dependencies: ["NavigationCore", "TrackFormats"]
        ),
        .testTarget(
            name: "NavigationControllerTests",
            dependencies: [
                "NavigationCore", "RouteAdapters", "RouteClient", "TrackFormats",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            exclude: ["Snapshots"]
        ),
        // Runs the real navctl binary (depending on it makes `swift test` build it).
        .testTarget(
            name: "NavctlTests",
            dependencies: ["navctl", "NavigationCore"]
        ),
        .testTarget(
            name: "RouteClientTests",
            dependencies: [
                "NavigationCore", "RouteAdapters", "RouteClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ]
)
