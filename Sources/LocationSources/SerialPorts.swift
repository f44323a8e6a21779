import CSerialPort
import FoundationEssentials
import Glibc

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

    public init(
        path: String, description: String? = nil, transport: String, usbVendorID: Int? = nil, usbProductID: Int? = nil,
        manufacturer: String? = nil, product: String? = nil, serialNumber: String? = nil
    ) {
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
        return SerialPortInfo(
            path: text(sp_get_port_name(port)) ?? "?", description: text(sp_get_port_description(port)), transport: transport,
            usbVendorID: hasIDs ? Int(vid) : nil, usbProductID: hasIDs ? Int(pid) : nil,
            manufacturer: text(sp_get_port_usb_manufacturer(port)), product: text(sp_get_port_usb_product(port)),
            serialNumber: text(sp_get_port_usb_serial(port)))
    }

    /// The GNSS receiver among the ports, for `serial = "auto"`: a known USB id first, then a product description.
    public static func findReceiver(in ports: [SerialPortInfo]) -> SerialPortInfo? {
        ports.first { $0.usbVendorID != nil && KnownGNSSReceivers.match($0) != nil && !($0.gnssMatch ?? "").hasPrefix("product") }
            ?? ports.first { $0.gnssMatch != nil }
    }

    static func lastError() -> String {
        guard let message = sp_last_error_message() else { return "unknown error" }
        defer { sp_free_error_message(message) }
        return String(cString: message)
    }
}
