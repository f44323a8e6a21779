import FoundationEssentials

/// What a PCM WAV file's header says (espeak-ng writes 16-bit mono at 22050 Hz).
struct WAVFile {
    /// Bytes of the whole file.
    var fileSize: Int
    /// Bytes per second of audio (the header's byte rate).
    var byteRate: Int
    /// Bytes after the first 8, as the RIFF header gives them: espeak-ng writes the sizes when it closes the file.
    var riffSize: Int

    init?(path: String) {
        guard let data = FileManager.default.contents(atPath: path), data.count >= 44 else { return nil }
        func word(_ offset: Int) -> Int { (0..<4).reduce(0) { $0 | Int(data[offset + $1]) << (8 * $1) } }
        fileSize = data.count
        byteRate = word(28)
        riffSize = word(4)
    }

    /// Seconds of audio in the file (its data after the 44-byte header).
    var duration: Double? { byteRate > 0 ? Double(fileSize - 44) / Double(byteRate) : nil }

    /// The header gives the file's own length: the program writing it has closed it.
    var isWhole: Bool { fileSize > 44 && riffSize == fileSize - 8 }

    static func duration(path: String) -> Double? { WAVFile(path: path)?.duration }
}
