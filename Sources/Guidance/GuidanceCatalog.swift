import NavigationCore

/// One language's texts, read from its data file: what navd says on its own, the units with their plurals, and
/// how numbers are written. A translator adds a language by adding a file; no code changes. Pure: bytes in.
public struct GuidanceCatalog: Sendable {
    public enum Plural: String, Sendable {
        /// The singular for exactly 1 (English, German, ...).
        case exactlyOne = "one_is_exactly_one"
        /// The singular below 2 (French: "1,5 kilomètre").
        case belowTwo = "one_is_below_two"
    }

    public let language: String
    /// The language's own name ("Deutsch").
    public let name: String
    public let decimalSeparator: String
    public let plural: Plural
    let messages: [String: String]
    let instructions: [String: String]
    let units: [String: (one: String, other: String)]
    /// Words an engine's instructions in this language use and other languages' do not ("abbiegen", "käänny"),
    /// lowercase: how navd tells that an answer is in another language than it asked for.
    public let markers: [String]
    /// Ordinals: by number ("1": "1re"), by the last two or the last digit ("*11": "{n}th", "*1": "{n}st"), and
    /// `other` for the rest, each with `{n}` (or the number written out).
    let ordinals: [String: String]

    /// Reads a data file; throws what is wrong with it, naming the key.
    public init(json bytes: [UInt8]) throws(CatalogError) {
        guard let root = try? JSONParser.parse(bytes), let object = root.objectValue else { throw CatalogError("not a JSON object") }
        func string(_ value: JSONValue?, _ key: String) throws(CatalogError) -> String {
            guard let text = value?.stringValue, !text.isEmpty else { throw CatalogError("'\(key)' must be a non-empty string") }
            return text
        }
        language = try string(object["language"], "language")
        name = try string(object["name"], "name")
        decimalSeparator = try string(object["decimalSeparator"], "decimalSeparator")
        guard let plural = Plural(rawValue: try string(object["plural"], "plural")) else {
            throw CatalogError("'plural' must be one_is_exactly_one or one_is_below_two")
        }
        self.plural = plural
        var messages: [String: String] = [:]
        for (key, value) in object["messages"]?.objectValue ?? [:] { messages[key] = try string(value, "messages.\(key)") }
        self.messages = messages
        var instructions: [String: String] = [:]
        for (key, value) in object["instructions"]?.objectValue ?? [:] { instructions[key] = try string(value, "instructions.\(key)") }
        self.instructions = instructions
        var ordinals: [String: String] = [:]
        for (key, value) in object["ordinals"]?.objectValue ?? [:] { ordinals[key] = try string(value, "ordinals.\(key)") }
        self.ordinals = ordinals
        markers = (object["markers"]?.arrayValue ?? []).compactMap { $0.stringValue?.lowercased() }
        var units: [String: (one: String, other: String)] = [:]
        for (key, value) in object["units"]?.objectValue ?? [:] {
            units[key] = (try string(value["one"], "units.\(key).one"), try string(value["other"], "units.\(key).other"))
        }
        self.units = units
    }

    /// `key`'s text with its placeholders filled from `values`; a placeholder without a value stays visible
    /// (`{limit}`) rather than vanishing, so a missing value shows in tests.
    public func text(_ key: MessageKey, _ values: [String: String] = [:]) -> String {
        Self.fill(messages[key.rawValue] ?? key.rawValue, values)
    }

    /// `key`'s text with its placeholders filled, its first letter capitalized (a template may start with a
    /// placeholder: "{modifier} abbiegen").
    public func instruction(_ key: InstructionKey, _ values: [String: String] = [:]) -> String {
        let text = Self.fill(instructions[key.rawValue] ?? key.rawValue, values)
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst()
    }

    /// A word that fills a placeholder (a modifier, a side, a direction), as written in the middle of a sentence.
    public func word(_ key: InstructionKey) -> String { instructions[key.rawValue] ?? key.rawValue }

    /// `n` as an ordinal ("2nd", "2.", "2e").
    public func ordinal(_ n: Int) -> String {
        let template = ordinals[String(n)] ?? ordinals["*\(abs(n) % 100)"] ?? ordinals["*\(abs(n) % 10)"] ?? ordinals["other"] ?? "{n}."
        return Self.fill(template, ["n": String(n)])
    }

    /// `amount` of `unit` as said and written: "300 metres", "0,3 Meilen", "1 mile".
    public func quantity(_ amount: Double, decimals: Int, _ unit: UnitKey) -> String {
        let singular: Bool
        switch plural {
        case .exactlyOne: singular = amount == 1
        case .belowTwo: singular = amount < 2
        }
        let forms = units[unit.rawValue] ?? (one: "{n} \(unit.rawValue)", other: "{n} \(unit.rawValue)")
        let number = DistanceFormatter.number(.init(amount: amount, unit: unit.rawValue, decimals: decimals), decimalSeparator: decimalSeparator)
        return Self.fill(singular ? forms.one : forms.other, ["n": number])
    }

    /// The words of `unit` in this language, lowercase, without the number ("meile", "meilen").
    public func unitWords(_ unit: UnitKey) -> Set<String> {
        guard let forms = units[unit.rawValue] else { return [] }
        return Set([forms.one, forms.other].map { Self.fill($0, ["n": ""]).lowercased().split(separator: " ").joined(separator: " ") })
    }

    /// A distance rounded for `units` and said in this language.
    public func distance(_ metres: Double, units: UnitSystem) -> String {
        let rounded = DistanceFormatter(units: units).rounded(metres)
        return quantity(rounded.amount, decimals: rounded.decimals, UnitKey(rawValue: rounded.unit) ?? .metres)
    }

    /// The keys and units this file lacks, and its placeholders that differ from what each key takes.
    public var problems: [String] {
        var problems: [String] = []
        problems += Self.problems(in: messages, table: "messages", expected: MessageKey.allCases.map { ($0.rawValue, $0.placeholders) })
        for unit in UnitKey.allCases {
            guard let forms = units[unit.rawValue] else {
                problems.append("units.\(unit.rawValue) is missing")
                continue
            }
            for form in [forms.one, forms.other] where Self.placeholders(in: form) != ["n"] {
                problems.append("units.\(unit.rawValue) '\(form)' must have exactly the placeholder {n}")
            }
        }
        problems += Self.problems(
            in: instructions, table: "instructions", expected: InstructionKey.allCases.map { ($0.rawValue, $0.placeholders) })
        if markers.count < 4 { problems.append("markers needs at least 4 words that this language's instructions use") }
        if Self.placeholders(in: ordinals["other"] ?? "") != ["n"] { problems.append("ordinals.other must be a text with exactly the placeholder {n}") }
        return problems
    }

    /// A table's missing keys, keys navd does not use, and texts whose placeholders differ from their key's.
    static func problems(in table: [String: String], table name: String, expected: [(key: String, placeholders: Set<String>)]) -> [String] {
        var problems: [String] = []
        for (key, placeholders) in expected {
            guard let text = table[key] else {
                problems.append("\(name).\(key) is missing")
                continue
            }
            let found = Self.placeholders(in: text)
            if found != placeholders { problems.append("\(name).\(key) has placeholders \(found.sorted()), not \(placeholders.sorted())") }
        }
        let known = Set(expected.map(\.key))
        for key in table.keys.sorted() where !known.contains(key) { problems.append("\(name).\(key) is not a key navd uses") }
        return problems
    }

    static func fill(_ template: String, _ values: [String: String]) -> String {
        var text = template
        for (name, value) in values { text = text.replacing("{\(name)}", with: value) }
        return text
    }

    static func placeholders(in text: String) -> Set<String> {
        var found: Set<String> = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            found.insert(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return found
    }
}

/// What is wrong with a language's data file.
public struct CatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
