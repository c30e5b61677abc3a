import CInputDevicesShims
import Glibc

// MARK: - Errno

/// An `errno` value returned by a failed system call.
///
/// The syscall layer throws this; ``InputDeviceError`` turns it into a message that names the node
/// and what to do about it.
public struct Errno: RawRepresentable, Hashable, Sendable, Error, CustomStringConvertible {
    /// The raw `errno` value.
    public var rawValue: CInt

    /// Wraps a raw `errno` value.
    public init(rawValue: CInt) { self.rawValue = rawValue }

    /// The device is gone (`ENODEV`): evdev and joydev fail reads and ioctls this way after unplug.
    public static let noDevice = Errno(rawValue: ENODEV)
    /// The caller may not open the node (`EACCES`).
    public static let permissionDenied = Errno(rawValue: EACCES)
    /// The operation is not permitted (`EPERM`).
    public static let notPermitted = Errno(rawValue: EPERM)
    /// The file does not understand the ioctl (`ENOTTY`): it is not an input device.
    public static let inappropriateIOControl = Errno(rawValue: ENOTTY)
    /// No such file or directory (`ENOENT`).
    public static let noSuchFile = Errno(rawValue: ENOENT)
    /// The call was interrupted by a signal (`EINTR`).
    public static let interrupted = Errno(rawValue: EINTR)
    /// Invalid argument (`EINVAL`): evdev's answer to a query it does not support.
    public static let invalidArgument = Errno(rawValue: EINVAL)

    /// The C library's message for this value.
    public var description: String { String(cString: strerror(rawValue)) }

    /// The calling thread's current `errno`.
    static var current: Errno { Errno(rawValue: errno) }
}

// MARK: - FileDescriptor

/// An open file descriptor: the thin typed wrapper that every other part of the module uses.
///
/// Like `swift-system`'s `FileDescriptor` it is a plain value; whoever opens it closes it.
public struct FileDescriptor: RawRepresentable, Hashable, Sendable {
    /// The raw descriptor.
    public var rawValue: CInt

    /// Wraps a raw descriptor (for example `0` for standard input).
    public init(rawValue: CInt) { self.rawValue = rawValue }

    /// Standard input, for reading a pipe of raw events.
    public static let standardInput = FileDescriptor(rawValue: STDIN_FILENO)

    /// Opens `path` read-only with close-on-exec; input nodes are never written.
    public static func openReadOnly(_ path: String) throws(Errno) -> FileDescriptor {
        while true {
            let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            if descriptor >= 0 { return FileDescriptor(rawValue: descriptor) }
            let error = Errno.current
            if error != .interrupted { throw error }
        }
    }

    /// Closes the descriptor.
    public func close() throws(Errno) {
        if Glibc.close(rawValue) != 0 { throw Errno.current }
    }

    /// Reads up to `buffer.count` bytes; returns 0 at the end of the stream.
    /// - Parameter retryOnInterrupt: repeat the call when a signal interrupts it. Pass `false` when a
    ///   signal handler (Ctrl-C) must be able to stop a blocked read; the read then throws `.interrupted`.
    public func read(into buffer: UnsafeMutableRawBufferPointer, retryOnInterrupt: Bool = true) throws(Errno) -> Int {
        while true {
            let count = Glibc.read(rawValue, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            let error = Errno.current
            if error != .interrupted || !retryOnInterrupt { throw error }
        }
    }

    /// Performs an ioctl whose argument is a pointer to `buffer` and returns the call's result.
    ///
    /// The request encodes the size the kernel copies; the buffer must be at least that large, which
    /// is checked here so that a wrong request can never make the kernel write past the buffer.
    public func control(_ request: IOControlRequest, buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> CInt {
        guard buffer.count >= request.size else { throw Errno.invalidArgument }
        return try retrying { hitthat_ioctl_pointer(rawValue, request.rawValue, buffer.baseAddress) }
    }

    /// Performs an ioctl whose argument is an integer passed by value (like `EVIOCGRAB`).
    public func control(_ request: IOControlRequest, value: Int) throws(Errno) -> CInt {
        try retrying { hitthat_ioctl_value(rawValue, request.rawValue, value) }
    }

    private func retrying(_ call: () -> CInt) throws(Errno) -> CInt {
        while true {
            let result = call()
            if result >= 0 { return result }
            let error = Errno.current
            if error != .interrupted { throw error }
        }
    }
}

// MARK: - Byte sources

/// Something events can be read from: an open node, a pipe, or bytes in memory.
public protocol ByteSource {
    /// Reads up to `buffer.count` bytes into `buffer`; returns 0 at the end of the stream.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int
}

extension FileDescriptor: ByteSource {
    /// Reads with `retryOnInterrupt: true`.
    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try read(into: buffer, retryOnInterrupt: true)
    }
}

/// A byte source that reads a file descriptor but lets a signal interrupt a blocked read.
///
/// Use it with a `SIGINT` handler installed without `SA_RESTART`: the read then throws
/// `Errno.interrupted` and the caller can print its summary and exit.
public struct InterruptibleDescriptor: ByteSource, Sendable {
    /// The descriptor read from.
    public var descriptor: FileDescriptor

    /// Wraps `descriptor`.
    public init(_ descriptor: FileDescriptor) { self.descriptor = descriptor }

    /// Reads with `retryOnInterrupt: false`.
    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try descriptor.read(into: buffer, retryOnInterrupt: false)
    }
}

/// Bytes in memory, handed out in pieces of at most `chunkSize` bytes (to mimic short pipe reads).
public struct MemoryByteSource: ByteSource, Sendable {
    /// The bytes not yet read.
    public private(set) var remaining: ArraySlice<UInt8>
    /// The most bytes one read returns.
    public var chunkSize: Int

    /// Serves `bytes`, at most `chunkSize` per read.
    public init(_ bytes: [UInt8], chunkSize: Int = .max) {
        remaining = bytes[...]
        self.chunkSize = max(1, chunkSize)
    }

    /// Copies the next piece into `buffer`.
    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        let count = min(buffer.count, chunkSize, remaining.count)
        let piece = remaining.prefix(count)
        piece.withUnsafeBytes { buffer.copyMemory(from: $0) }
        remaining = remaining.dropFirst(count)
        return count
    }
}
