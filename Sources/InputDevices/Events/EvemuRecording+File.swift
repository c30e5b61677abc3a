// MARK: - Loading a file

extension EvemuRecording {
    /// Reads and parses the evemu file at `path` (`listen --evemu`, `--device-info`).
    /// - Throws: ``InputDeviceError`` when the file cannot be read, ``EvemuSyntaxError`` when it cannot be parsed.
    public static func load(path: String) throws -> EvemuRecording {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.openReadOnly(path)
        } catch {
            throw InputDeviceError(error, path: path, operation: .open)
        }
        defer { try? descriptor.close() }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) in try descriptor.read(into: buffer, retryOnInterrupt: true) }
            }.mapError { InputDeviceError($0, path: path, operation: .read) }.get()
            if count == 0 { break }
            contents += chunk[..<count]
        }
        return try EvemuRecording(parsing: String(decoding: contents, as: UTF8.self), source: path)
    }
}
