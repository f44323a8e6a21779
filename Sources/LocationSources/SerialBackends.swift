import CSerialPort
import FoundationEssentials
import Glibc

/// An open serial device the reader thread reads from.
protocol SerialBackend: AnyObject {
    /// Reads up to `count` bytes, waiting at most `timeoutMilliseconds`. Returns the bytes read (0 on timeout),
    /// or nil when the device is gone.
    func read(_ buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) -> Int?
    func setBaudRate(_ baud: Int) -> Bool
    /// The open device's file descriptor, for reading it on an event loop once it is set up.
    var descriptor: Int32 { get }
    func close()
}

/// Why a device could not be opened.
struct SerialOpenError: Error, CustomStringConvertible {
    var description: String
}

/// Real serial ports (USB receivers, UARTs) through libserialport: 8N1, no flow control.
final class LibSerialPortBackend: SerialBackend {
    private let port: OpaquePointer
    let descriptor: Int32

    init(path: String, baud: Int) throws(SerialOpenError) {
        var handle: OpaquePointer?
        guard sp_get_port_by_name(path, &handle) == SP_OK, let handle else {
            throw SerialOpenError(description: "libserialport does not know \(path): \(SerialPorts.lastError())")
        }
        guard sp_open(handle, SP_MODE_READ) == SP_OK else {
            let code = errno
            let reason = code == EBUSY ? ExclusiveDevice.openFailure(path: path, code: code) : "libserialport cannot open \(path): \(SerialPorts.lastError())"
            sp_free_port(handle)
            throw SerialOpenError(description: reason)
        }
        port = handle
        var fd: Int32 = -1
        if sp_get_port_handle(port, &fd) == SP_OK { ExclusiveDevice.claim(fd: fd) }
        descriptor = fd
        guard sp_set_bits(port, 8) == SP_OK, sp_set_parity(port, SP_PARITY_NONE) == SP_OK, sp_set_stopbits(port, 1) == SP_OK,
            sp_set_flowcontrol(port, SP_FLOWCONTROL_NONE) == SP_OK, setBaudRate(baud)
        else {
            let reason = SerialPorts.lastError()
            sp_close(port)
            sp_free_port(port)
            throw SerialOpenError(description: "libserialport cannot configure \(path): \(reason)")
        }
    }

    func setBaudRate(_ baud: Int) -> Bool { sp_set_baudrate(port, Int32(baud)) == SP_OK }

    func read(_ buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) -> Int? {
        let n = sp_blocking_read_next(port, buffer.baseAddress, buffer.count, UInt32(timeoutMilliseconds))
        return n.rawValue >= 0 ? Int(n.rawValue) : nil
    }

    func close() {
        sp_close(port)
        sp_free_port(port)
    }
}

/// Plain termios, for devices libserialport refuses (a pty has no /sys/class/tty entry and fails TIOCMGET).
final class TermiosBackend: SerialBackend {
    private let fd: Int32
    var descriptor: Int32 { fd }

    init(path: String, baud: Int) throws(SerialOpenError) {
        fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { throw SerialOpenError(description: ExclusiveDevice.openFailure(path: path, code: errno)) }
        ExclusiveDevice.claim(fd: fd)
        var settings = termios()
        guard tcgetattr(fd, &settings) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw SerialOpenError(description: "\(path) is not a terminal device: \(reason)")
        }
        cfmakeraw(&settings)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        settings.c_cflag &= ~tcflag_t(CRTSCTS)
        _ = tcsetattr(fd, TCSANOW, &settings)
        _ = setBaudRate(baud)
    }

    func setBaudRate(_ baud: Int) -> Bool {
        var settings = termios()
        guard tcgetattr(fd, &settings) == 0, let speed = Self.speeds[baud] else { return false }
        cfsetispeed(&settings, speed)
        cfsetospeed(&settings, speed)
        return tcsetattr(fd, TCSANOW, &settings) == 0
    }

    static let speeds: [Int: speed_t] = [
        4800: speed_t(B4800), 9600: speed_t(B9600), 19200: speed_t(B19200), 38400: speed_t(B38400),
        57600: speed_t(B57600), 115200: speed_t(B115200), 230400: speed_t(B230400), 460800: speed_t(B460800),
    ]

    func read(_ buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) -> Int? {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pfd, 1, timeoutMilliseconds)
        if ready == 0 { return 0 }
        if ready < 0 { return errno == EINTR ? 0 : nil }
        if pfd.revents & Int16(POLLIN) == 0, pfd.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return nil }
        let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if n > 0 { return n }
        if n < 0, errno == EAGAIN || errno == EINTR { return 0 }
        // 0 bytes after POLLIN: the other end is gone (a pty whose master closed, an unplugged device).
        return nil
    }

    func close() { Glibc.close(fd) }
}
