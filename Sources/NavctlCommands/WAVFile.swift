import FoundationEssentials

/// The length of a PCM WAV file from its header (espeak-ng writes 16-bit mono at 22050 Hz).
enum WAVFile {
    static func duration(path: String) -> Double? {
        guard let data = FileManager.default.contents(atPath: path), data.count >= 44 else { return nil }
        func word(_ offset: Int, _ size: Int) -> Int { (0..<size).reduce(0) { $0 | Int(data[offset + $1]) << (8 * $1) } }
        let byteRate = word(28, 4)
        guard byteRate > 0 else { return nil }
        return Double(data.count - 44) / Double(byteRate)
    }
}
