import Foundation
import Testing

/// Validates lines navd sent against docs/protocol.schema.json with a real JSON Schema validator (Python's
/// `jsonschema`, Draft 2020-12): every field of every message, not only names.
public enum ProtocolSchema {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let validator = #"""
    import json, sys
    from jsonschema import Draft202012Validator
    schema = json.load(open(sys.argv[1]))
    # One validator per message type: the branch of serverMessage whose `type` is that constant.
    validators = {}
    for branch in schema["$defs"]["serverMessage"]["oneOf"]:
        wrapped = {"$defs": schema["$defs"], **branch}
        validators[branch["properties"]["type"]["const"]] = Draft202012Validator(wrapped)
    failures, number = 0, 0
    for number, line in enumerate(open(sys.argv[2]), 1):
        message = json.loads(line)
        validator = validators.get(message.get("type"))
        problems = [f"unknown message type {message.get('type')!r}"] if validator is None else \
            [f"{'/'.join(map(str, e.absolute_path)) or '(message)'}: {e.message}" for e in validator.iter_errors(message)]
        if problems:
            failures += 1
            if failures <= 5:
                print(f"line {number}: {line.strip()[:160]} -> {'; '.join(problems)[:600]}")
    print(f"checked {number} lines, {failures} invalid")
    """#

    /// The messages of `lines` that do not match the schema (with why), and how many were checked.
    public static func invalid(_ lines: [String]) throws -> (failures: [String], summary: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("navd-schema-\(UUID().uuidString).jsonl")
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try ToolRun.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "-c", validator, repoRoot.appendingPathComponent("docs/protocol.schema.json").path, file.path])
        if output.status != 0 {
            Issue.record("the schema validator did not run (python3 with jsonschema; scripts/setup installs it): \(output.stderr.suffix(800))")
        }
        let printed = output.stdout.split(separator: "\n").map(String.init)
        return (printed.filter { $0.hasPrefix("line ") }, printed.last ?? "")
    }
}
