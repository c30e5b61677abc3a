// MARK: - Vector3

/// A three-component vector of doubles: an acceleration in g, a direction, or a sum of them.
///
/// It is a plain value so the detector's per-sample arithmetic stays allocation-free.
public struct Vector3: Hashable, Sendable {
    /// The first component (the device's X axis for raw readings).
    public var x: Double
    /// The second component.
    public var y: Double
    /// The third component.
    public var z: Double

    /// Creates a vector from its three components.
    @inlinable
    public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The zero vector.
    ///
    /// Computed, not stored: a stored static is a global that every use outside inlined code
    /// checks for its one-time initialisation.
    @inlinable public static var zero: Vector3 { Vector3(0, 0, 0) }

    /// The Euclidean length.
    @inlinable
    public var length: Double { (x * x + y * y + z * z).squareRoot() }

    /// The squared Euclidean length, for comparisons that need no square root.
    @inlinable
    public var lengthSquared: Double { x * x + y * y + z * z }

    /// The vector scaled to unit length, or zero when it has no length.
    @inlinable
    public var normalized: Vector3 {
        let l = length
        return l > 0 ? self / l : .zero
    }

    /// The dot product.
    @inlinable
    public func dot(_ other: Vector3) -> Double { x * other.x + y * other.y + z * other.z }

    /// The cross product.
    @inlinable
    public func cross(_ o: Vector3) -> Vector3 {
        Vector3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
    }

    /// Whether every component is a finite number.
    @inlinable
    public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    /// The sum of two vectors.
    @inlinable public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    /// The difference of two vectors.
    @inlinable public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    /// The vector pointing the other way.
    @inlinable public static prefix func - (a: Vector3) -> Vector3 { Vector3(-a.x, -a.y, -a.z) }
    /// The vector scaled by a number.
    @inlinable public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    /// The vector scaled by a number.
    @inlinable public static func * (s: Double, a: Vector3) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    /// The vector divided by a number.
    @inlinable public static func / (a: Vector3, s: Double) -> Vector3 { Vector3(a.x / s, a.y / s, a.z / s) }
    /// Adds a vector in place.
    @inlinable public static func += (a: inout Vector3, b: Vector3) { a = a + b }
    /// Subtracts a vector in place.
    @inlinable public static func -= (a: inout Vector3, b: Vector3) { a = a - b }
}
