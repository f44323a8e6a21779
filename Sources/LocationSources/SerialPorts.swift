import CSerialPort
import FoundationEssentials
import Glibc
import NavigationCore

/// A serial port as libserialport enumerates it, with what makes a GNSS receiver recognisable.
public struct SerialPortInfo: Hashable, Sendable, Codable {
    /// Device path, e.g. `/dev/ttyACM0`.
    public var path: String
    public var description: String?
    /// `usb`, `bluetooth`, `native` (built-in UART).
    public var transport: String
    public var usbVendorID: Int?
    public var usbProductID: Int?
    public var manufacturer: String?
    public var product: String?
    public var serialNumber: String?
    /// The USB interface the port belongs to (`bInterfaceNumber`): a modem has several ports, one per interface,
    /// and only one of them speaks NMEA.
    public var usbInterface: Int?

    public init(
        path: String, description: String? = nil, transport: String, usbVendorID: Int? = nil, usbProductID: Int? = nil,
        manufacturer: String? = nil, product: String? = nil, serialNumber: String? = nil, usbInterface: Int? = nil
    ) {
        self.usbInterface = usbInterface
        self.path = path
        self.description = description
        self.transport = transport
        self.usbVendorID = usbVendorID
        self.usbProductID = usbProductID
        self.manufacturer = manufacturer
        self.product = product
        self.serialNumber = serialNumber
    }

    /// What kind of GNSS receiver this looks like, or nil.
    public var gnssMatch: String? { KnownGNSSReceivers.match(self) }
}

/// USB ids and product words of common GNSS receivers and the USB-serial bridges inside them.
public enum KnownGNSSReceivers {
    public static let usbIDs: [(vendor: Int, products: ClosedRange<Int>, name: String)] = [
        (0x1546, 0x01a5...0x01a9, "u-blox receiver"),
        (0x10c4, 0xea60...0xea60, "Silicon Labs CP210x (common in GNSS modules)"),
        (0x067b, 0x2303...0x2303, "Prolific PL2303 (BU-353 and similar)"),
        (0x091e, 0x0003...0x0003, "Garmin USB receiver"),
        (0x0e8d, 0x3329...0x3329, "MediaTek GPS"),
        (0x1163, 0x0100...0x0100, "Cypress M8 (DeLorme Earthmate)"),
        (0x1163, 0x0200...0x0200, "Cypress M8 (DeLorme Earthmate)"),
        (0x1199, 0x9071...0x9071, "Sierra Wireless modem GNSS port"),
        (0x2c7c, 0x0125...0x0125, "Quectel module GNSS port"),
    ]

    /// Modems whose GNSS port is one interface among several (diagnostics, AT, PPP): vendor, product and the
    /// interface that carries NMEA (the same as udev/60-navd-gnss.rules).
    public static let nmeaInterfaces: [(vendor: Int, product: Int, interface: Int)] = [
        (0x1199, 0x9071, 2),  // Sierra Wireless MC7455
        (0x2c7c, 0x0125, 1),  // Quectel EC2x/EG2x
    ]

    /// For a port of a modem in ``nmeaInterfaces``: whether it is the NMEA interface; nil for other ports or
    /// when the interface is not known.
    public static func isNMEAInterface(_ port: SerialPortInfo) -> Bool? {
        guard let vendor = port.usbVendorID, let product = port.usbProductID, let interface = port.usbInterface,
            let modem = nmeaInterfaces.first(where: { $0.vendor == vendor && $0.product == product })
        else { return nil }
        return modem.interface == interface
    }

    /// Words in a product description that name a GNSS receiver.
    public static let productWords = ["gps", "gnss", "u-blox", "ublox", "navigation", "glonass", "sirf"]

    public static func match(_ port: SerialPortInfo) -> String? {
        if let vendor = port.usbVendorID, let product = port.usbProductID,
            let known = usbIDs.first(where: { $0.vendor == vendor && $0.products.contains(product) })
        {
            return known.name
        }
        let text = [port.description, port.product, port.manufacturer].compactMap { $0?.lowercased() }.joined(separator: " ")
        if let word = productWords.first(where: { text.contains($0) }) { return "product description mentions \(word)" }
        return nil
    }
}

/// Serial-port enumeration through libserialport.
public enum SerialPorts {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Every serial port libserialport sees.
    public static func list() throws(Failure) -> [SerialPortInfo] {
        var list: UnsafeMutablePointer<OpaquePointer?>?
        guard sp_list_ports(&list) == SP_OK, let list else {
            throw Failure(description: "cannot enumerate serial ports: \(lastError())")
        }
        defer { sp_free_port_list(list) }
        var ports: [SerialPortInfo] = []
        var i = 0
        while let port = list[i] {
            ports.append(info(port))
            i += 1
        }
        return ports.sorted { $0.path < $1.path }
    }

    static func info(_ port: OpaquePointer) -> SerialPortInfo {
        func text(_ c: UnsafeMutablePointer<CChar>?) -> String? { c.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        let transport: String =
            switch sp_get_port_transport(port) {
            case SP_TRANSPORT_USB: "usb"
            case SP_TRANSPORT_BLUETOOTH: "bluetooth"
            default: "native"
            }
        var vid: Int32 = 0, pid: Int32 = 0
        let hasIDs = transport == "usb" && sp_get_port_usb_vid_pid(port, &vid, &pid) == SP_OK
        let path = text(sp_get_port_name(port)) ?? "?"
        return SerialPortInfo(
            path: path, description: text(sp_get_port_description(port)), transport: transport,
            usbVendorID: hasIDs ? Int(vid) : nil, usbProductID: hasIDs ? Int(pid) : nil,
            manufacturer: text(sp_get_port_usb_manufacturer(port)), product: text(sp_get_port_usb_product(port)),
            serialNumber: text(sp_get_port_usb_serial(port)), usbInterface: transport == "usb" ? usbInterface(of: path) : nil)
    }

    /// `bInterfaceNumber` of a USB tty from sysfs: the interface is the tty's device (cdc-acm) or its parent
    /// (usb-serial).
    static func usbInterface(of path: String) -> Int? {
        let name = PathText.lastComponent(of: path)
        for candidate in ["/sys/class/tty/\(name)/device/bInterfaceNumber", "/sys/class/tty/\(name)/device/../bInterfaceNumber"] {
            if let data = FileManager.default.contents(atPath: candidate), let text = String(data: data, encoding: .utf8),
                let number = Int(text.filter { !$0.isWhitespace }, radix: 16)
            {
                return number
            }
        }
        return nil
    }

    /// The GNSS receiver among the ports, for `serial = "auto"`: the first of ``receiverCandidates(in:)``.
    public static func findReceiver(in ports: [SerialPortInfo]) -> SerialPortInfo? {
        receiverCandidates(in: ports).first
    }

    /// The ports that may be the GNSS receiver, most likely first: a modem's known NMEA interface; a known USB
    /// id (without a modem's other interfaces, which are diagnostics and AT ports: opening them gets no
    /// fixes); then a product description that names GNSS. With several, navd listens to each in turn.
    public static func receiverCandidates(in ports: [SerialPortInfo]) -> [SerialPortInfo] {
        let nmeaInterfaces = ports.filter { KnownGNSSReceivers.isNMEAInterface($0) == true }
        let knownIDs = ports.filter {
            $0.usbVendorID != nil && $0.gnssMatch != nil && !($0.gnssMatch ?? "").hasPrefix("product") && KnownGNSSReceivers.isNMEAInterface($0) == nil
        }
        let otherModemPorts = ports.filter { KnownGNSSReceivers.isNMEAInterface($0) == false }
        let described = ports.filter { ($0.gnssMatch ?? "").hasPrefix("product") }
        var seen: Set<String> = []
        // A modem port whose interface is unknown (no sysfs) stays a candidate after the known ones.
        return (nmeaInterfaces + knownIDs + described + (nmeaInterfaces.isEmpty ? otherModemPorts : [])).filter { seen.insert($0.path).inserted }
    }

    static func lastError() -> String {
        guard let message = sp_last_error_message() else { return "unknown error" }
        defer { sp_free_error_message(message) }
        return String(cString: message)
    }
}
