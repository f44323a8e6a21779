import Foundation

extension FieldBenchmark {
    /// navd (serial source, one client) and gpsd's relay fed the same epochs at the same moments, each from its own
    /// pty: their times compared epoch by epoch. The other phases time them minutes apart, and on a shared machine a
    /// p99 (the third-worst of 300 epochs) is mostly where the machine stalled in those minutes; here an epoch
    /// slow for both is the machine's, and one slow for navd alone is navd's. The two readers share the two cores,
    /// so these times are not the serial phase's (navd alone with its client).
    func sharedEpochsPhase(directory: String) -> [Figure] {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let gpsdPty = PtyPair(directory: directory, name: "gpsd-gps")
        let relay = GpsdRelay(pty: gpsdPty, directory: directory)
        let rig = SerialRig(navd: navd, valhalla: valhalla, directory: directory, alsoFed: [gpsdPty])
        defer {
            rig.close()
            relay.close(keep: keep ? "\(directory)/watcher.jsonl" : nil)
            gpsdPty.close()
        }
        // gpsd relays nothing for the first epochs it reads (it is finding the receiver's sentences): stand until
        // its watcher has a TPV, so that every epoch measured can reach both.
        for _ in 0..<100 where !relay.watcher.lines.contains(where: { GpsdRelay.isTPV($0.text) }) {
            rig.feeder.send(Self.origin, course: 55, speed: 0)
        }
        guard relay.watcher.lines.contains(where: { GpsdRelay.isTPV($0.text) }) else { fail("gpsd relayed no TPV in 10 s:\n\(relay.process.log)") }
        let walk = Self.startTrip(feeder: rig.feeder, client: rig.client)
        var distance = 0.0
        let first = Self.drive(feeder: rig.feeder, walk: walk, distance: &distance, speed: 12, epochs: epochs)
        let navdTimes = rig.feeder.firstArrivals(of: rig.client.lines, since: first, filter: Self.isTripState)
        let gpsdTimes = rig.feeder.firstArrivals(of: relay.watcher.lines, since: first, filter: GpsdRelay.isTPV)
        let shared = navdTimes.keys.filter { gpsdTimes[$0] != nil }.sorted()
        let navd = shared.map { navdTimes[$0]! }, gpsd = shared.map { gpsdTimes[$0]! }
        let navdSlow = zip(navd, gpsd).filter { $0.0 > 1 }, gpsdSlow = gpsd.filter { $0 > 1 }
        let bothSlow = navdSlow.filter { $0.1 > 1 }
        let slowest = zip(navd, gpsd).sorted { max($0.0, $0.1) > max($1.0, $1.1) }.prefix(5)
        progress("same epochs: \(shared.count) of \(epochs) reached both; the slowest (navd / gpsd ms): \(slowest.map { String(format: "%.2f / %.2f", $0.0, $0.1) }.joined(separator: ", "))")
        let (navdPercentiles, gpsdPercentiles) = (Percentiles(navd), Percentiles(gpsd))
        return [
            Figure("fix to socket beside gpsd on the same epochs, p50", navdPercentiles.median, "ms", peer: gpsdPercentiles.median, peerName: "gpsd relay"),
            Figure("fix to socket beside gpsd on the same epochs, p99", navdPercentiles.p99, "ms", peer: gpsdPercentiles.p99, peerName: "gpsd relay"),
            Figure("epochs over 1 ms, of \(shared.count) the same", Double(navdSlow.count), "epochs", peer: Double(gpsdSlow.count), peerName: "gpsd relay"),
            Figure("epochs over 1 ms at both", Double(bothSlow.count), "epochs"),
        ]
    }
}
