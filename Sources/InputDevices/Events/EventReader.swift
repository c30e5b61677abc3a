// MARK: - FixedSizeEventFormat

/// A binary event record of fixed size: `input_event` or `js_event`.
public protocol FixedSizeEventFormat: Sendable {
    /// The decoded event.
    associatedtype Event
    /// The size of one record in bytes.
    var eventSize: Int { get }
    /// Decodes one record from exactly `eventSize` bytes.
    func decode(_ bytes: UnsafeRawBufferPointer) throws(EventDecodingError.Problem) -> Event
}

// MARK: - EventDecodingError

/// A binary event stream that cannot be decoded: where, and what was wrong.
public struct EventDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong with the record.
    public enum Problem: Error, Hashable, Sendable {
        /// The stream ended inside a record.
        case truncated(expected: Int, available: Int)
        /// A field holds a value the kernel never writes.
        case invalidField(name: String, value: Int64, expected: String)
    }

    /// The path of the node or file, or `-` for standard input.
    public var source: String
    /// The byte offset of the record's first byte in the stream.
    public var offset: Int
    /// What was wrong.
    public var problem: Problem

    /// Creates an error.
    public init(source: String, offset: Int, problem: Problem) {
        self.source = source
        self.offset = offset
        self.problem = problem
    }

    /// A one-line message for the user.
    public var description: String {
        switch problem {
        case .truncated(let expected, let available):
            "\(source): truncated event at byte \(offset): expected \(expected) bytes, the stream ended after \(available)"
        case .invalidField(let name, let value, let expected):
            "\(source): garbled event at byte \(offset): field \(name) is \(value), expected \(expected) (wrong --event-size?)"
        }
    }
}

// MARK: - EventReader

/// Reads fixed-size event records from a byte source, many per `read(2)`.
///
/// A DualShock over Bluetooth sends more than 1000 events a second, so one call fills a buffer of
/// `eventsPerRead` records; evdev only ever returns whole events, but a pipe may split them, so a
/// partial record is kept until the rest arrives. A stream that ends inside a record is an error.
public struct EventReader<Format: FixedSizeEventFormat, Source: ByteSource> {
    /// The byte source (an open node, a pipe, memory).
    public private(set) var source: Source
    /// The record format.
    public let format: Format
    /// The path or name used in error messages.
    public let sourceName: String
    /// Bytes of all records returned so far: the offset of the next record.
    public private(set) var offset = 0
    /// How many `read` calls returned data, for checking that reads are batched.
    public private(set) var readCount = 0

    private var buffer: [UInt8]
    private var start = 0
    private var end = 0

    /// Creates a reader.
    /// - Parameters:
    ///   - source: where the bytes come from.
    ///   - format: the record format.
    ///   - sourceName: the path, or `-` for standard input, named in errors.
    ///   - eventsPerRead: how many records one `read` may return.
    public init(source: Source, format: Format, sourceName: String, eventsPerRead: Int = 256) {
        self.source = source
        self.format = format
        self.sourceName = sourceName
        buffer = [UInt8](repeating: 0, count: format.eventSize * max(1, eventsPerRead))
    }

    /// The next event, or `nil` at the end of the stream.
    /// - Throws: ``EventDecodingError`` for a truncated or garbled record, ``InputDeviceError`` when the
    ///   read fails (unplugged, interrupted, …).
    public mutating func next() throws -> Format.Event? {
        let size = format.eventSize
        while end - start < size {
            if try !fill() {
                if end == start { return nil }
                throw EventDecodingError(
                    source: sourceName, offset: offset, problem: .truncated(expected: size, available: end - start))
            }
        }
        let recordStart = start
        start += size
        defer { offset += size }
        let decoded = buffer.withUnsafeBytes { bytes in
            Result { () throws(EventDecodingError.Problem) in
                try format.decode(UnsafeRawBufferPointer(rebasing: bytes[recordStart..<recordStart + size]))
            }
        }
        do {
            return try decoded.get()
        } catch {
            throw EventDecodingError(source: sourceName, offset: offset, problem: error)
        }
    }

    /// Moves the partial record to the front and reads more; returns `false` at the end of the stream.
    private mutating func fill() throws -> Bool {
        // Only a pipe leaves a partial record behind, and it is shorter than one record.
        for index in 0..<end - start { buffer[index] = buffer[start + index] }
        end -= start
        start = 0
        let filled = end
        let count: Int
        do {
            count = try buffer.withUnsafeMutableBytes { bytes in
                Result { () throws(Errno) in
                    try source.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[filled...]))
                }
            }.get()
        } catch {
            throw InputDeviceError(error, path: sourceName, operation: .read)
        }
        guard count > 0 else { return false }
        readCount += 1
        end += count
        return true
    }
}
