import Foundation
import PunchKit

// MARK: - Rotation

/// A rotation as a 3×3 matrix whose rows are the device's axes in world coordinates, so that
/// `deviceFrame(of:)` turns a world vector into what the device's sensor sees.
public struct Rotation: Hashable, Sendable {
    var rows: (Vector3, Vector3, Vector3)

    /// Whether two rotations have exactly the same matrix.
    public static func == (a: Rotation, b: Rotation) -> Bool {
        a.rows.0 == b.rows.0 && a.rows.1 == b.rows.1 && a.rows.2 == b.rows.2
    }

    /// Hashes the matrix.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rows.0)
        hasher.combine(rows.1)
        hasher.combine(rows.2)
    }

    /// No rotation: the device's axes are the world's.
    public static let identity = Rotation(rows: (Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)))

    /// The rotation by `angle` radians about `axis` (right-handed), as a rotation of the device.
    public init(axis: Vector3, angle: Double) {
        let k = axis.normalized
        let c = cos(angle)
        let s = sin(angle)
        let t = 1 - c
        // Columns of the world-from-device matrix are the rotated basis; rows here are its transpose.
        let r00 = c + k.x * k.x * t
        let r01 = k.x * k.y * t - k.z * s
        let r02 = k.x * k.z * t + k.y * s
        let r10 = k.y * k.x * t + k.z * s
        let r11 = c + k.y * k.y * t
        let r12 = k.y * k.z * t - k.x * s
        let r20 = k.z * k.x * t - k.y * s
        let r21 = k.z * k.y * t + k.x * s
        let r22 = c + k.z * k.z * t
        rows = (Vector3(r00, r10, r20), Vector3(r01, r11, r21), Vector3(r02, r12, r22))
    }

    init(rows: (Vector3, Vector3, Vector3)) { self.rows = rows }

    /// A rotation drawn uniformly from all orientations (a random unit quaternion).
    public static func random(using generator: inout SeededGenerator) -> Rotation {
        var q = (0.0, 0.0, 0.0, 0.0)
        var norm = 0.0
        repeat {
            q = (generator.gaussian(), generator.gaussian(), generator.gaussian(), generator.gaussian())
            norm = (q.0 * q.0 + q.1 * q.1 + q.2 * q.2 + q.3 * q.3).squareRoot()
        } while norm < 1e-9
        let angle = 2 * acos(min(1, abs(q.0) / norm))
        let axis = Vector3(q.1, q.2, q.3) * (q.0 < 0 ? -1 : 1)
        return axis.length < 1e-12 ? .identity : Rotation(axis: axis, angle: angle)
    }

    /// The device's view of a world vector.
    public func deviceFrame(of v: Vector3) -> Vector3 {
        Vector3(rows.0.dot(v), rows.1.dot(v), rows.2.dot(v))
    }

    /// The world vector that the device sees as `v`.
    public func worldFrame(of v: Vector3) -> Vector3 {
        rows.0 * v.x + rows.1 * v.y + rows.2 * v.z
    }

    /// This device orientation, then turned by `other` about world axes.
    public func turned(by other: Rotation) -> Rotation {
        Rotation(rows: (other.worldFrame(of: rows.0), other.worldFrame(of: rows.1), other.worldFrame(of: rows.2)))
    }
}
