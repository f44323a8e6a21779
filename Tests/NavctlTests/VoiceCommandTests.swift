import Foundation
import Testing

/// navctl's voice-related arguments are checked before anything is sent, with navd's own words.
struct VoiceCommandTests {
    @Test(arguments: [
        (["navigate", "--to", "60.17,24.94", "--units", "furlongs"], "--units 'furlongs' must be metric, imperial or auto"),
        (["navigate", "--to", "60.17,24.94", "--language", "not a tag!"], "--language 'not a tag!' is not a BCP 47 language tag"),
        (["speak", "--maximum-wait", "900"], "--maximum-wait must be 0 to 600 seconds"),
        (["speak", "--engine", "speech-dispatcher", "--wav-dir", "/tmp"], "--wav-dir needs espeak-ng"),
        (["voice", "loud"], "loud"),
    ])
    func aBadArgumentIsRefusedWithAReason(arguments: [String], reason: String) throws {
        let run = try NavctlProcess.run(arguments + ["--socket", "/nonexistent/navd.sock"])
        #expect(run.status != 0)
        #expect(run.stderr.contains(reason), "stderr: \(run.stderr)")
        #expect(!run.stderr.contains("cannot connect"), "checked only after trying navd: \(run.stderr)")
    }
}
