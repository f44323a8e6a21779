import Foundation
import Testing
@testable import TrackFormats

/// The GPX reader's own XML scanner (it replaced Foundation's XMLParser, which fuzzing crashed twice).
@Suite struct XMLScannerTests {
    static func events(_ text: String) throws(XMLScanner.Failure) -> [XMLScanner.Event] {
        var events: [XMLScanner.Event] = []
        var scanner = XMLScanner(Array(text.utf8))
        try scanner.scan { event, _ in events.append(event) }
        return events
    }

    @Test func elementsAttributesTextEntitiesAndCDATA() throws {
        let events = try Self.events(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE gpx [ <!ENTITY x "y"> ]>
            <!-- a comment with <tags> -->
            <gpx:gpx a='1' b = "x &amp; y &#x41;&#66;"><?pi data?><t>&lt;now&gt;<![CDATA[ <raw> ]]></t><e/></gpx:gpx>
            """)
        #expect(events == [
            .start(name: "gpx", attributes: ["a": "1", "b": "x & y AB"]),
            .start(name: "t", attributes: [:]), .text("<now>"), .text(" <raw> "), .end(name: "t"),
            .start(name: "e", attributes: [:]), .end(name: "e"),
            .end(name: "gpx"),
        ])
    }

    @Test(arguments: [
        ("<a><b></a>", "</a> where </b> was expected", 1),
        ("<a>\n\n<b>", "the file ends inside <b>", 3),
        ("<a></a><b/>", "a second root element", 1),
        ("x<a/>", "text outside the root element", 1),
        ("<a x='1' x='2'/>", "x given twice", 1),
        ("<a x=1/>", "must be quoted", 1),
        ("<a>&bogus;</a>", "unknown entity", 1),
        ("<a>&#0;</a>", "unknown entity", 1),
        ("<a><!-- never", "a comment that never ends", 1),
        ("<?xion?>-\"8*\n<gpx{\"t", "text outside the root element", 1),
        ("<?xion?>\n<gpx{\"t", "expected", 2),
        ("", "no root element", 1),
        ("</a>", "closes nothing", 1),
    ])
    func malformedXMLSaysWhatAndWhere(text: String, message: String, line: Int) {
        do {
            _ = try Self.events(text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
            #expect(error.line == line)
        }
    }

    @Test func deepNestingCostsNoStack() throws {
        let depth = 100_000
        let events = try Self.events(String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth))
        #expect(events.count == 2 * depth)
    }
}
