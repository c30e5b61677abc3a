import Foundation
import PunchKit

// MARK: - A profile as a file

/// Why a profile file cannot be used: the file, and what was expected where.
public struct ProfileFileError: Error, CustomStringConvertible, Hashable, Sendable {
    /// What went wrong.
    public enum Cause: Hashable, Sendable {
        /// The file cannot be opened or read.
        case cannotOpen
        /// The file is not a profile this program reads.
        case malformed
    }

    /// What went wrong.
    public var cause: Cause
    /// The file's path.
    public var path: String
    /// The reason, in words.
    public var reason: String

    public var description: String { "\(path): \(reason)" }
}

extension PunchProfile {
    /// Reads a profile written by `hitthat calibrate` (or the server), checking that every number
    /// in it can be used.
    public static func read(from path: String) throws(ProfileFileError) -> PunchProfile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ProfileFileError(cause: .cannotOpen, path: path, reason: "cannot open the profile")
        }
        return try decode(data, source: path)
    }

    /// A profile from its JSON, checked as `read(from:)` checks a file; `source` names it in errors.
    public static func decode(_ data: Data, source: String) throws(ProfileFileError) -> PunchProfile {
        func malformed(_ reason: String) -> ProfileFileError {
            ProfileFileError(cause: .malformed, path: source, reason: reason)
        }
        let profile: PunchProfile
        do {
            profile = try JSONDecoder().decode(PunchProfile.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw malformed("expected a field \"\(key.stringValue)\"\(at(context.codingPath)); it is missing")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw malformed(
                context.codingPath.isEmpty
                    ? "expected a profile's JSON: an object with its version, hand and kinds"
                    : "\(context.debugDescription)\(at(context.codingPath))")
        } catch let DecodingError.dataCorrupted(context) {
            throw malformed("expected a profile's JSON\(at(context.codingPath)): \(context.debugDescription)")
        } catch {
            throw malformed("expected a profile's JSON: \(error)")
        }
        guard profile.version == currentVersion else {
            throw malformed(
                "expected a profile of version \(currentVersion), found version \(profile.version): teach it again")
        }
        let kinds = profile.kinds.map(\.kind)
        guard !kinds.isEmpty, Set(kinds).count == kinds.count else {
            throw malformed("expected each kind at most once in \"kinds\", and at least one kind")
        }
        let numbers = profile.kinds.flatMap(\.mean.values) + Array(profile.spread.values)
        guard numbers.allSatisfy(\.isFinite), profile.spread.values.allSatisfy({ $0 > 0 }) else {
            throw malformed("expected finite means and positive spreads")
        }
        guard profile.typicalPeakG > 0, profile.typicalPeakG.isFinite else {
            throw malformed("expected \"typicalPeakG\" to be a positive number of g")
        }
        return profile
    }

    /// The profile as JSON a person can read: indented, keys in order.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // Its numbers are finite and its keys strings: nothing in it can fail to encode.
        guard let data = try? encoder.encode(self) else { preconditionFailure("unencodable profile") }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}

/// " at kinds[0].mean" for a coding path, or nothing for the top.
private func at(_ path: [any CodingKey]) -> String {
    guard !path.isEmpty else { return "" }
    let text = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    return " at " + (text.hasPrefix(".") ? String(text.dropFirst()) : text)
}
