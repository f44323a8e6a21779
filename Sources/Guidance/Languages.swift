/// The languages navd ships, their data files compiled into the binary (SwiftPM `embedInCode`: no files to find
/// at run time, no Foundation).
public enum ShippedLanguages {
    /// Each language's data file, by its language subtag.
    public static let files: [String: [UInt8]] = [
        "en": PackageResources.en_json, "de": PackageResources.de_json, "fr": PackageResources.fr_json,
        "es": PackageResources.es_json, "fi": PackageResources.fi_json, "sv": PackageResources.sv_json,
    ]

    /// Every shipped file read once (a broken one is missing here, and GuidanceTests fails).
    static let catalogs: [String: GuidanceCatalog] = files.compactMapValues { try? GuidanceCatalog(json: $0) }

    /// English, which navd falls back to.
    public static let english: GuidanceCatalog = catalogs["en"]!

    /// The catalog for `tag`'s language, or English when navd has none for it (nil only if a shipped file is broken).
    public static func catalog(for tag: LanguageTag) -> GuidanceCatalog? {
        files[tag.language] == nil ? catalogs["en"] : catalogs[tag.language]
    }
}
