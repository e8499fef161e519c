import Foundation

/// A three-component vector in a device frame: x to the right, y up the screen, z out of the screen,
/// as Core Motion defines its axes. Units belong to the quantity that holds it (g, rad/s, microtesla).
public struct Vector3: Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    public static let zero = Vector3(x: 0, y: 0, z: 0)

    /// Euclidean length.
    public var magnitude: Double { (x * x + y * y + z * z).squareRoot() }

    public func dot(_ o: Vector3) -> Double { x * o.x + y * o.y + z * o.z }

    public func cross(_ o: Vector3) -> Vector3 {
        Vector3(x: y * o.z - z * o.y, y: z * o.x - x * o.z, z: x * o.y - y * o.x)
    }

    public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z) }
    public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(x: a.x - b.x, y: a.y - b.y, z: a.z - b.z) }
    public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(x: a.x * s, y: a.y * s, z: a.z * s) }
    public static func * (s: Double, a: Vector3) -> Vector3 { a * s }
    public static prefix func - (a: Vector3) -> Vector3 { Vector3(x: -a.x, y: -a.y, z: -a.z) }
}

extension Vector3 {
    /// The vector scaled to length 1; the zero vector stays zero.
    public var normalized: Vector3 {
        let m = magnitude
        return m > 0 ? self * (1 / m) : .zero
    }

    /// The angle between two vectors in radians (0...π); 0 when either is zero.
    public func angle(to o: Vector3) -> Double {
        let m = magnitude * o.magnitude
        guard m > 0 else { return 0 }
        // atan2 of |a×b| and a·b stays accurate for tiny and near-π angles, unlike acos.
        return atan2(cross(o).magnitude, dot(o))
    }

    public static func / (a: Vector3, s: Double) -> Vector3 { Vector3(x: a.x / s, y: a.y / s, z: a.z / s) }
    public static func += (a: inout Vector3, b: Vector3) { a = a + b }
    public static func -= (a: inout Vector3, b: Vector3) { a = a - b }
}
