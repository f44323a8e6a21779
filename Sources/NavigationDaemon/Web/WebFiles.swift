/// The dashboard's files, embedded in the binary (nothing fetched from elsewhere). A placeholder page until the
/// dashboard lands (branch `web`, issue 25).
enum WebFiles {
    static let all: [String: (type: String, bytes: [UInt8])] = [
        "/": ("text/html; charset=utf-8", Array("""
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>navd</title></head>
            <body><p>navd's dashboard is being built; /ws speaks the socket protocol.</p></body></html>
            """.utf8))
    ]
}
