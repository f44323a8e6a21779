import Foundation
import Testing
import TestSupport

/// A USB serial device as the kernel presents it in sysfs (usb_device, its interface, the usb-serial port,
/// the tty), written as a umockdev description so that Debian's real udevadm can run its real rules against it.
struct USBSerialDevice: CustomStringConvertible, Sendable {
    var name: String
    var vendor: String
    var product: String
    /// bInterfaceNumber, two hex digits.
    var interface: String
    /// The kernel driver of the interface (cdc_acm makes ttyACM, the others ttyUSB).
    var driver: String
    var tty: String
    /// Whether navd's rules should give it /dev/navd-gps.
    var isReceiver: Bool

    var description: String { name }

    var umockdev: String {
        let usb = "/devices/pci0000:00/0000:00:14.0/usb1/1-1"
        let port = "\(usb)/1-1:1.\(Int(interface, radix: 16) ?? 0)"
        let major = tty.hasPrefix("ttyACM") ? 166 : 188
        let minor = Int(tty.drop { !$0.isNumber }) ?? 0
        let ttyParent = driver == "cdc_acm" ? "\(port)/tty/\(tty)" : "\(port)/\(tty)/tty/\(tty)"
        var text = """
            P: \(usb)
            N: bus/usb/001/002
            E: SUBSYSTEM=usb
            E: DEVTYPE=usb_device
            E: DEVNAME=/dev/bus/usb/001/002
            A: idVendor=\(vendor)
            A: idProduct=\(product)
            A: manufacturer=Test
            A: product=\(name)
            A: serial=0123456789
            A: bDeviceClass=00
            A: bNumInterfaces= 4
            A: busnum=1
            A: devnum=2

            P: \(port)
            E: SUBSYSTEM=usb
            E: DEVTYPE=usb_interface
            E: DRIVER=\(driver)
            A: bInterfaceNumber=\(interface)
            A: bInterfaceClass=\(driver == "cdc_acm" ? "02" : "ff")
            A: bInterfaceSubClass=00
            A: bInterfaceProtocol=00


            """
        if driver != "cdc_acm" {
            text += """
                P: \(port)/\(tty)
                E: SUBSYSTEM=usb-serial
                E: DRIVER=\(driver)1


                """
        }
        text += """
            P: \(ttyParent)
            N: \(tty)
            E: SUBSYSTEM=tty
            E: DEVNAME=/dev/\(tty)
            E: MAJOR=\(major)
            E: MINOR=\(minor)
            A: dev=\(major):\(minor)

            """
        return text
    }

    static let all: [USBSerialDevice] = [
        USBSerialDevice(name: "Quectel EC25 NMEA port", vendor: "2c7c", product: "0125", interface: "01", driver: "option", tty: "ttyUSB1", isReceiver: true),
        USBSerialDevice(name: "Quectel EC25 AT port", vendor: "2c7c", product: "0125", interface: "02", driver: "option", tty: "ttyUSB2", isReceiver: false),
        USBSerialDevice(name: "Sierra MC7455 NMEA port", vendor: "1199", product: "9071", interface: "02", driver: "qcserial", tty: "ttyUSB2", isReceiver: true),
        USBSerialDevice(name: "Sierra MC7455 other port", vendor: "1199", product: "9071", interface: "03", driver: "qcserial", tty: "ttyUSB3", isReceiver: false),
        USBSerialDevice(name: "u-blox 8", vendor: "1546", product: "01a8", interface: "00", driver: "cdc_acm", tty: "ttyACM0", isReceiver: true),
        USBSerialDevice(name: "GlobalSat BU-353 (PL2303)", vendor: "067b", product: "2303", interface: "00", driver: "pl2303", tty: "ttyUSB0", isReceiver: true),
        USBSerialDevice(name: "FTDI cable (not a receiver)", vendor: "0403", product: "6001", interface: "00", driver: "ftdi_sio", tty: "ttyUSB0", isReceiver: false),
    ]
}

/// navd's udev rules, installed by its package into Debian 12's real /usr/lib/udev/rules.d (beside
/// 60-serial.rules and the rest), run by the real udevadm against umockdev descriptions of USB devices.
@Suite("udev rules", .serialized)
struct UdevRulesTests {
    /// `udevadm test` of `device` inside the bookworm root with navd's package installed; the device's properties.
    /// `prepare` runs after the installation (e.g. to override the rules).
    static func properties(of device: USBSerialDevice, prepare: String = "") throws -> [String: String] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("navd-udev-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        try device.umockdev.write(to: scratch.appendingPathComponent("device.umockdev"), atomically: true, encoding: .utf8)
        // udevd does not run here (no boot): the package's postinst tolerates that, as it must in a chroot.
        let output = try RootCommand.run(
            in: "bookworm", binds: [SystemFixtures.distDirectory: "/dist", scratch.path: "/device"],
            """
            set -e
            dpkg -i \(try SystemFixtures.package()) >/dev/null
            \(prepare)
            umockdev-run --device /device/device.umockdev -- udevadm test --action=add /sys/class/tty/\(device.tty) 2>&1
            """)
        guard output.succeeded else {
            Issue.record("udevadm test failed for \(device): \(output)")
            throw CancellationError()
        }
        #expect(output.text.contains("60-navd-gnss.rules"), "udevadm did not read navd's rules: \(output.text.suffix(3000))")
        var properties: [String: String] = [:]
        for line in output.text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "="), line[..<equals].allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "_" }) else { continue }
            properties[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return properties
    }

    @Test("receivers get /dev/navd-gps and ModemManager leaves them alone; other ports and devices do not", arguments: USBSerialDevice.all)
    func rulesMatchReceivers(device: USBSerialDevice) throws {
        let properties = try Self.properties(of: device)
        let links = (properties["DEVLINKS"] ?? "").split(separator: " ")
        #expect(links.contains("/dev/navd-gps") == device.isReceiver, "DEVLINKS: \(links); properties: \(properties)")
        let ignored = properties["ID_MM_DEVICE_IGNORE"] == "1" || properties["ID_MM_PORT_IGNORE"] == "1"
        #expect(ignored == device.isReceiver, "\(properties)")
        if device.isReceiver {
            #expect(properties["TAGS"]?.contains(":systemd:") == true, "\(properties)")
        }
    }

    /// Debian's gpsd rules start gpsdctl@ for the same receivers; two readers would split the byte stream.
    @Test(
        "gpsd's hotplug is kept off a receiver while navd reads it itself (source = serial), and left alone otherwise",
        arguments: USBSerialDevice.all.filter { ["u-blox 8", "GlobalSat BU-353 (PL2303)"].contains($0.name) })
    func gpsdHotplugStaysOffNavdsReceiver(device: USBSerialDevice) throws {
        let gpsdWants = "gpsdctl@\(device.tty).service"
        let withGpsdSource = try Self.properties(of: device, prepare: "rm -f /var/lib/navd/serial-receiver")
        #expect(withGpsdSource["SYSTEMD_WANTS"] == gpsdWants, "gpsd's own rules no longer want this receiver: \(withGpsdSource)")
        let withSerialSource = try Self.properties(
            of: device, prepare: "mkdir -p /var/lib/navd && echo 'navd reads /dev/navd-gps itself' >/var/lib/navd/serial-receiver")
        #expect(withSerialSource["SYSTEMD_WANTS"] ?? "" == "", "gpsd would still be started on navd's receiver: \(withSerialSource)")
        #expect((withSerialSource["DEVLINKS"] ?? "").contains("/dev/navd-gps"), "\(withSerialSource)")
    }

    @Test("without importing usb_id, the modem rules would never fire (60-serial.rules sorts after navd's)")
    func modemRulesNeedTheImport() throws {
        let quectel = try #require(USBSerialDevice.all.first)
        // A copy of navd's rules without the import, in /etc/udev/rules.d where it overrides the packaged file.
        let properties = try Self.properties(
            of: quectel,
            prepare: "sed '/IMPORT{builtin}=\"usb_id\"/d' /lib/udev/rules.d/60-navd-gnss.rules >/etc/udev/rules.d/60-navd-gnss.rules")
        let links = (properties["DEVLINKS"] ?? "").split(separator: " ")
        #expect(!links.contains("/dev/navd-gps"), "the Quectel rule fired without usb_id: \(properties)")
        // ... while 60-serial.rules still imports it later, so the property itself exists in the end.
        #expect(properties["ID_USB_INTERFACE_NUM"] == "01", "\(properties)")
    }
}
