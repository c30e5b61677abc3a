import GRDB

// MARK: - Durability

/// What a commit that has returned survives. The file is always in WAL mode, so neither choice can
/// leave it corrupt; they differ in whether each commit waits for the disk.
public enum Durability: String, Sendable, CaseIterable {
    /// The process dying (`kill -9`, a crash): `synchronous = NORMAL`. A commit is in the
    /// operating system's hands when it returns and reaches the disk at the next checkpoint, so
    /// an operating-system crash or power loss may lose the last commits, never a part of one.
    case processCrash = "process-crash"
    /// Power loss as well: `synchronous = FULL`, one `fsync` for every commit (milliseconds each,
    /// and commands are serialised behind it).
    case powerLoss = "power-loss"

    /// A GRDB configuration for a file shared by the server's processes and tables: this
    /// durability, and a wait of up to 10 s for a lock another connection holds.
    public var configuration: Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let synchronous = self == .powerLoss ? "FULL" : "NORMAL"
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
        return configuration
    }
}
