import Glibc

/// Temporary files and directories for tests, removed by the tests that make them.
public enum TemporaryFiles {
    /// A system call that failed.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, with errno.
        public var description: String
    }

    /// A new empty directory under /tmp.
    public static func directory() throws -> String {
        var template = Array("/tmp/hitthat-input-XXXXXX".utf8CString)
        guard let path = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed: errno \(errno)") }
        return String(cString: path)
    }

    /// A new file under /tmp with `contents`.
    public static func file(contents: [UInt8]) throws -> String {
        var template = Array("/tmp/hitthat-input-XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else { throw Failure(description: "mkstemp failed: errno \(errno)") }
        defer { close(descriptor) }
        guard Glibc.write(descriptor, contents, contents.count) == contents.count else {
            throw Failure(description: "write failed")
        }
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Writes `contents` to `path`, replacing it.
    public static func write(_ contents: [UInt8], to path: String) throws {
        guard let file = fopen(path, "wb") else { throw Failure(description: "cannot create \(path): errno \(errno)") }
        defer { fclose(file) }
        guard fwrite(contents, 1, contents.count, file) == contents.count else {
            throw Failure(description: "cannot write \(path)")
        }
    }

    /// Removes a directory tree (only ever one this file created).
    public static func remove(_ path: String) {
        guard let directory = opendir(path) else {
            unlink(path)
            return
        }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(directory)
        for name in names { remove(path + "/" + name) }
        rmdir(path)
    }

    /// A group other than root's from the group database, to give a file a recognisable group.
    public static func existingGroup() -> (name: String, gid: gid_t)? {
        for name in ["input", "video", "plugdev", "daemon"] {
            if let entry = getgrnam(name) { return (name, entry.pointee.gr_gid) }
        }
        return nil
    }
}
