import Foundation
import NavigationCore
import Testing
import TrackFormats

@Suite("Track files")
struct TrackReaderTests {
    @Test func readsAGPXTrackWithTimes() throws {
        let gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
              <wpt lat="1" lon="2"><name>ignored when a track exists</name></wpt>
              <trk><name>drive</name><trkseg>
                <trkpt lat="60.1699" lon="24.9384"><ele>12</ele><time>2026-11-21T06:08:10Z</time></trkpt>
                <trkpt lat="60.1700" lon="24.9390"><time>2026-11-21T06:08:11.500Z</time></trkpt>
                <trkpt lat="60.1701" lon="24.9396"/>
              </trkseg></trk>
            </gpx>
            """
        let points = try TrackReader.read(Data(gpx.utf8))
        #expect(points.map(\.coordinate.latitude) == [60.1699, 60.17, 60.1701])
        #expect(points[0].timestamp?.timeIntervalSince1970 == 1_795_241_290)
        #expect(points[1].timestamp?.timeIntervalSince1970 == 1_795_241_291.5)
        #expect(points[2].timestamp == nil)
    }

    @Test func fallsBackToRoutePointsThenWaypoints() throws {
        let route = #"<gpx><rte><rtept lat="60.1" lon="24.9"/><rtept lat="60.2" lon="24.8"/></rte><wpt lat="1" lon="2"/></gpx>"#
        #expect(try TrackReader.read(Data(route.utf8)).count == 2)
        let waypoints = #"<gpx><wpt lat="60.1" lon="24.9"/></gpx>"#
        #expect(try TrackReader.read(Data(waypoints.utf8)).map(\.coordinate) == [GeographicCoordinate(latitude: 60.1, longitude: 24.9)])
    }

    @Test(arguments: [
        #"[[24.9384,60.1699],[24.9390,60.17]]"#,
        #"[{"lat":60.1699,"lon":24.9384},{"lat":60.17,"lon":24.939,"time":"2026-11-21T06:08:11Z"}]"#,
        #"{"type":"LineString","coordinates":[[24.9384,60.1699],[24.9390,60.17]]}"#,
        #"{"type":"Feature","geometry":{"type":"LineString","coordinates":[[24.9384,60.1699],[24.9390,60.17]]}}"#,
    ])
    func readsJSONTracks(json: String) throws {
        let points = try TrackReader.read(Data(json.utf8))
        #expect(points.count == 2)
        #expect(points[0].coordinate == GeographicCoordinate(latitude: 60.1699, longitude: 24.9384))
        #expect(points[1].coordinate == GeographicCoordinate(latitude: 60.17, longitude: 24.939))
    }

    @Test(arguments: [
        ("", "the track has no points"),
        ("hello", "not a track file"),
        ("[]", "the track has no points"),
        (#"[[24.9]]"#, "invalid JSON track: point 0"),
        (#"[{"lat":"north","lon":1}]"#, "invalid JSON track: point 0"),
        (#"[[200,60]]"#, "outside the world"),
        (#"{"foo":1}"#, "GeoJSON LineString"),
        ("[1,2", "invalid JSON track"),
        (#"<gpx><trk><trkseg><trkpt lat="x" lon="1"/></trkseg></trk></gpx>"#, "needs numeric lat and lon"),
        (#"<gpx><trk><trkseg><trkpt lat="60" lon="1">"#, "invalid GPX"),
        (#"<gpx></gpx>"#, "the track has no points"),
    ])
    func badTracksSayWhatIsWrong(input: String, message: String) {
        #expect {
            try TrackReader.read(Data(input.utf8))
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    /// Found by fuzzing (Fuzz/Regressions/FuzzTrack): malformed UTF-8 inside a tag made Foundation's XMLParser
    /// trap, taking navctl (and a replaying navd) down. Now a clear error naming the byte.
    @Test(arguments: [
        Array(#"<gpx><trk><trkseg><trkpt lat"#.utf8) + [0xCD, 0x58] + Array(#"="60.1" lon="24.9"/></trkseg></trk></gpx>"#.utf8),
        Array(#"<gpx><trk><trkseg><trkpt lat="60.1" lon="24.9"><time>"#.utf8) + [0xFF, 0xFF] + Array("</time></trkpt></trkseg></trk></gpx>".utf8),
    ])
    func aGPXFileThatIsNotUTF8IsRefusedWithItsOffset(bytes: [UInt8]) {
        #expect {
            try TrackReader.read(Data(bytes))
        } throws: { error in
            "\(error)".contains("not UTF-8") && "\(error)".contains("byte \(bytes.firstIndex { $0 >= 0xCD }!)")
        }
    }

    /// Every input the fuzzer found (Fuzz/Regressions/FuzzTrack) is read without a crash, and whatever any reader
    /// returns is on the globe.
    @Test func theFuzzersFindingsAreReadSafely() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Regressions/FuzzTrack")
        let inputs = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(inputs.count >= 4)
        for input in inputs {
            let data = try Data(contentsOf: directory.appendingPathComponent(input))
            var coordinates = (try? TrackReader.read(data))?.map(\.coordinate) ?? []
            coordinates += (try? LocationTrackReader.read(data))?.map(\.coordinate) ?? []
            coordinates += (try? GpsdJSONLogReader.read(data))?.compactMap(\.fix?.location.coordinate) ?? []
            let offTheGlobe = coordinates.filter { !$0.isValid }
            #expect(offTheGlobe.isEmpty, "\(input): \(offTheGlobe.prefix(3))")
        }
    }

    @Test(arguments: [
        (#"{"lat":95.1,"lon":24.9,"accuracy":4,"time":"2026-11-21T08:19:24Z"}"#, "line 1: lat/lon is outside the world"),
        (#"{"lat":60.1,"lon":24.9,"accuracy":4,"time":"2026-11-21T08:19:24Z"}"# + "\n" + #"{"lat":60.1,"lon":-190,"accuracy":4,"time":"2026-11-21T08:19:25Z"}"#, "line 2: lat/lon is outside the world"),
    ])
    func recordedFixesOffTheGlobeAreRefused(jsonl: String, message: String) {
        #expect {
            try LocationTrackReader.read(Data(jsonl.utf8))
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func aGpsdReportOffTheGlobeIsNoFix() throws {
        let log = #"{"class":"TPV","mode":3,"time":"2026-11-21T08:19:24.000Z","lat":91.5,"lon":24.9,"eph":5}"#
        let readings = try GpsdJSONLogReader.read(Data(log.utf8))
        #expect(readings.count == 1)
        #expect(readings.first?.fix == nil)
    }

    /// gpsd says `"status":5` (DR) on a fix the receiver dead-reckoned itself, and nothing on a plain fix.
    @Test(arguments: [(#","status":5"#, true), ("", false), (#","status":2"#, false), (#","status":6"#, false)])
    func aGpsdDeadReckonedFixIsEstimated(status: String, estimated: Bool) throws {
        let log = #"{"class":"TPV","mode":3"# + status + #","time":"2026-11-21T08:19:24.000Z","lat":60.1,"lon":24.9,"speed":20}"#
        let fix = try #require(try GpsdJSONLogReader.read(Data(log.utf8)).first?.fix)
        #expect(fix.quality.estimated == estimated)
    }

    /// Numbers no Int can hold where gpsd sends small integers (found by fuzzing: `Int(1e30)` trapped).
    @Test(arguments: [
        #"{"class":"TPV","mode":1222222222222222222222222222,"time":"2026-11-21T08:19:24.000Z","lat":60.1,"lon":24.9}"#,
        #"{"class":"TPV","mode":2.5,"time":"2026-11-21T08:19:24.000Z","lat":60.1,"lon":24.9}"#,
        #"{"class":"SKY","uSat":1e300,"nSat":-1e300}"#,
    ])
    func numbersBeyondIntAreNoFixNotATrap(line: String) throws {
        let readings = try GpsdJSONLogReader.read(Data(line.utf8))
        #expect(readings.allSatisfy { $0.fix == nil })
    }
}
