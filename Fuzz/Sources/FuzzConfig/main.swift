import FuzzDriver
import NavigationDaemon

/// A navd.toml through the loader: TOML parsing (navd's TOMLParser) and every key's check. Every
/// rejection must name at least one problem with a message.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: inputBytes(data, count), as: UTF8.self)
    do throws(ConfigErrors) {
        let config = try ConfigLoader.parse(text, file: "fuzz.toml")
        precondition(config.routing.maxAttempts >= 1 && config.socket.maxClients >= 1)
    } catch {
        precondition(!error.errors.isEmpty && error.errors.allSatisfy { !$0.message.isEmpty }, "a rejection without a reason")
    }
    return 0
}


// SwiftPM links this file's top-level code as main; it hands the input function to libFuzzer.
runFuzzer { fuzzConfig($0, $1) }
