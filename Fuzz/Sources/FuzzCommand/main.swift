import FuzzDriver
import NavigationDaemon
import NavigationProtocol

let router = CommandRouter.standard()

/// A socket line to a typed command, as navd decodes it for a peer with control rights. Every failure must be
/// a `ProtocolError` with a message (the type system says so); a crash, a hang or unbounded memory is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommand(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let line = inputBytes(data, count)
    do throws(ProtocolError) {
        let parsed = try JSONLine.parseCommand(line)
        let command = try router.prepare(type: parsed.type, fields: parsed.fields, mayControl: true)
        precondition(command.type == parsed.type)
    } catch {
        precondition(!error.message.isEmpty, "an error without a message")
    }
    return 0
}


// SwiftPM links this file's top-level code as main; it hands the input function to libFuzzer.
runFuzzer { fuzzCommand($0, $1) }
