import FoundationEssentials
import Glibc
import SystemSupport

/// The terminal the live view draws on: the alternate screen is not used, so the last picture stays after exit.
enum TerminalScreen {
    private static let escape = "\u{1B}["

    /// Clears the screen, hides the cursor, and shows it again on Ctrl-C.
    static func begin() {
        write(escape + "2J" + escape + "H" + escape + "?25l")
        signal(SIGINT) { _ in
            let restore = Array("\u{1B}[?25h\n".utf8)
            _ = restore.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            _exit(130)
        }
    }

    static func end() { write(escape + "?25h") }

    /// Draws `lines` from the top left, clearing what was there before.
    static func draw(_ lines: [String]) {
        write(escape + "H" + lines.map { $0 + escape + "K\n" }.joined() + escape + "J")
    }

    /// Columns of the terminal on standard output (80 when it does not say).
    static func width() -> Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    private static func write(_ text: String) {
        StandardStream.output.write(text)
    }
}
