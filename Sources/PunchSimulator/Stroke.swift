import Foundation
import PunchKit

// MARK: - Stroke

/// One movement of the hand from rest to rest along a line or a horizontal arc, with a smooth
/// speed-up, an optional cruise and a slow-down: the building block of a simulated punch.
///
/// The speed rises as `V (1 − cos πτ) / 2` over `accelerating` seconds and falls as
/// `V (1 + cos πτ) / 2` over `stopping` seconds, so acceleration is a half sine and the hand ends
/// exactly at rest. On an arc the hand also feels the centripetal `v² / r`.
struct Stroke: Sendable {
    enum Path: Sendable {
        /// A straight line along a unit direction.
        case line(Vector3)
        /// An arc around `up` of `radius` metres starting along `tangent`; `turn` is +1 for
        /// counterclockwise seen from above, −1 for clockwise.
        case arc(tangent: Vector3, up: Vector3, radius: Double, turn: Double)
    }

    var path: Path
    var start: Double
    var topSpeed: Double
    var accelerating: Double
    var cruising: Double
    var stopping: Double

    var duration: Double { accelerating + cruising + stopping }
    var end: Double { start + duration }
    /// When the stop begins.
    var stopStart: Double { start + accelerating + cruising }

    /// The hand's acceleration in the world at time `t`, in m/s².
    func acceleration(at t: Double) -> Vector3 {
        let local = t - start
        guard local > 0, local < duration else { return .zero }
        let (speed, tangential, distance) = profile(at: local)
        switch path {
        case .line(let direction):
            return direction * tangential
        case .arc(let tangent, let up, let radius, let turn):
            let angle = distance / radius * turn
            let heading = rotate(tangent, about: up, by: angle)
            let inward = up.cross(heading) * turn
            return heading * tangential + inward * (speed * speed / radius)
        }
    }

    /// Speed (m/s), tangential acceleration (m/s²) and distance travelled (m) at `local` seconds.
    private func profile(at local: Double) -> (Double, Double, Double) {
        let v = topSpeed
        if local < accelerating {
            let phase = Double.pi * local / accelerating
            let distance = v / 2 * (local - accelerating / .pi * sin(phase))
            return (v * (1 - cos(phase)) / 2, v * .pi / (2 * accelerating) * sin(phase), distance)
        }
        let afterSpeedUp = v * accelerating / 2
        if local < accelerating + cruising {
            return (v, 0, afterSpeedUp + v * (local - accelerating))
        }
        let stopLocal = local - accelerating - cruising
        let phase = Double.pi * stopLocal / stopping
        let distance = afterSpeedUp + v * cruising + v / 2 * (stopLocal + stopping / .pi * sin(phase))
        return (v * (1 + cos(phase)) / 2, -v * .pi / (2 * stopping) * sin(phase), distance)
    }
}

/// `v` turned by `angle` radians about the unit `axis` (Rodrigues).
func rotate(_ v: Vector3, about axis: Vector3, by angle: Double) -> Vector3 {
    let c = cos(angle)
    let s = sin(angle)
    return v * c + axis.cross(v) * s + axis * (axis.dot(v) * (1 - c))
}
