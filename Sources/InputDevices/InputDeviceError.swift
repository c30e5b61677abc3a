import Glibc

// MARK: - InputDeviceError

/// A failed system call on an input node, in terms the user can act on.
public enum InputDeviceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was being done when the call failed.
    public enum Operation: String, Hashable, Sendable {
        /// `open(2)`.
        case open
        /// `read(2)`.
        case read
        /// `ioctl(2)`, with the query's name.
        case query
    }

    /// The device went away (`ENODEV`): evdev fails every read and ioctl this way after an unplug.
    case unplugged(path: String)
    /// The user may not open the node (`EACCES`/`EPERM`); `group` is the node's group (usually
    /// `input`), which the user can join, or `nil` when it could not be found.
    case permissionDenied(path: String, group: String?)
    /// The file answers input ioctls with `ENOTTY`: it is not an evdev or joydev node.
    case notAnInputDevice(path: String)
    /// The path does not exist (`ENOENT`).
    case notFound(path: String)
    /// A signal interrupted a blocked read (only when reads are not retried).
    case interrupted(path: String)
    /// Any other failure.
    case system(path: String, operation: Operation, errno: Errno)

    /// Maps `errno` from `operation` on `path` to a case, looking up the node's group for `EACCES`.
    public init(_ errno: Errno, path: String, operation: Operation) {
        switch errno {
        case .noDevice: self = .unplugged(path: path)
        case .permissionDenied, .notPermitted:
            self = .permissionDenied(path: path, group: Self.groupName(ofFileAt: path))
        case .inappropriateIOControl: self = .notAnInputDevice(path: path)
        case .noSuchFile: self = .notFound(path: path)
        case .interrupted: self = .interrupted(path: path)
        default: self = .system(path: path, operation: operation, errno: errno)
        }
    }

    /// The path the error is about.
    public var path: String {
        switch self {
        case .unplugged(let path), .permissionDenied(let path, _), .notAnInputDevice(let path),
            .notFound(let path), .interrupted(let path), .system(let path, _, _):
            path
        }
    }

    /// A one-line message for the user that says what to do.
    public var description: String {
        switch self {
        case .unplugged(let path):
            "\(path): the device was unplugged (ENODEV)"
        case .permissionDenied(let path, let group?):
            "\(path): permission denied; join the group that owns it: sudo usermod -aG \(group) $USER, then log in again"
        case .permissionDenied(let path, nil):
            "\(path): permission denied, and the node's group could not be read"
        case .notAnInputDevice(let path):
            "\(path): not an input device (the evdev/joydev queries fail with ENOTTY)"
        case .notFound(let path):
            "\(path): no such file"
        case .interrupted(let path):
            "\(path): interrupted"
        case .system(let path, let operation, let errno):
            "\(path): \(operation.rawValue) failed: \(errno) (errno \(errno.rawValue))"
        }
    }

    /// The name of the group that owns the file at `path`, from `stat(2)` and the group database.
    static func groupName(ofFileAt path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        var group = group()
        var result: UnsafeMutablePointer<group>?
        var storage = [CChar](repeating: 0, count: 4096)
        let code = getgrgid_r(status.st_gid, &group, &storage, storage.count, &result)
        guard code == 0, let entry = result, let name = entry.pointee.gr_name else { return nil }
        return String(cString: name)
    }
}
