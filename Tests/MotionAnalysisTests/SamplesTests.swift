import Foundation
import SignalProcessing
import Testing
@testable import MotionAnalysis


@Suite struct AttitudeTests {
    static func randomAttitudes(_ n: Int) -> [(roll: Double, pitch: Double, yaw: Double)] {
        var g = SplitMix64(seed: 42)
        return (0..<n).map { _ in
            (Double.random(in: -3.1...3.1, using: &g), Double.random(in: -1.55...1.55, using: &g),
             Double.random(in: -3.1...3.1, using: &g))
        }
    }

    @Test func quaternionMatrixAndEulerAgreeToOneNanoradian() {
        for e in Self.randomAttitudes(2000) {
            let a = Attitude(roll: e.roll, pitch: e.pitch, yaw: e.yaw)
            #expect(abs(a.roll - e.roll) < 1e-9)
            #expect(abs(a.pitch - e.pitch) < 1e-9)
            #expect(abs(a.yaw - e.yaw) < 1e-9)
            // Matrix from the quaternion equals the Euler composition Rz·Rx·Ry built directly.
            let (cr, sr, cp, sp, cy, sy) = (cos(e.roll), sin(e.roll), cos(e.pitch), sin(e.pitch), cos(e.yaw), sin(e.yaw))
            let rz = RotationMatrix(m11: cy, m12: -sy, m13: 0, m21: sy, m22: cy, m23: 0, m31: 0, m32: 0, m33: 1)
            let rx = RotationMatrix(m11: 1, m12: 0, m13: 0, m21: 0, m22: cp, m23: -sp, m31: 0, m32: sp, m33: cp)
            let ry = RotationMatrix(m11: cr, m12: 0, m13: sr, m21: 0, m22: 1, m23: 0, m31: -sr, m32: 0, m33: cr)
            let direct = rz * rx * ry
            #expect(a.rotationMatrix.maxDifference(direct) < 1e-9)
            // Matrix -> quaternion -> matrix round trip.
            let back = Attitude(rotationMatrix: direct)
            #expect(back.rotationMatrix.maxDifference(direct) < 1e-9)
            // Rotating a vector by the quaternion equals multiplying by the matrix.
            let v = Vector3(x: 0.3, y: -1.2, z: 2.5)
            #expect((a.quaternion.rotate(v) - direct * v).magnitude < 1e-9)
        }
    }

    @Test func gravityIsAUnitVectorMatchingCoreMotionsPitchRollRelation() {
        for e in Self.randomAttitudes(1000) {
            let g = Attitude(roll: e.roll, pitch: e.pitch, yaw: e.yaw).gravity
            #expect(abs(g.magnitude - 1) < 1e-6)
            // The relation iPhone logs show between their gravity, pitch and roll columns.
            let expected = Vector3(x: cos(e.pitch) * sin(e.roll), y: -sin(e.pitch), z: -cos(e.pitch) * cos(e.roll))
            #expect((g - expected).magnitude < 1e-9)
        }
        // Lying face up on a table: gravity along −z.
        #expect((Attitude.identity.gravity - Vector3(x: 0, y: 0, z: -1)).magnitude < 1e-12)
    }

    @Test func attitudeTimesItsInverseIsTheIdentity() {
        for e in Self.randomAttitudes(500) {
            var a = Attitude(roll: e.roll, pitch: e.pitch, yaw: e.yaw)
            let copy = a
            a.multiply(byInverseOf: copy)
            #expect(a.rotationMatrix.maxDifference(.identity) < 1e-9)
            #expect(abs(a.roll) < 1e-9 && abs(a.pitch) < 1e-9 && abs(a.yaw) < 1e-9)
            let m = copy.rotationMatrix
            #expect((m * m.transposed).maxDifference(.identity) < 1e-9)
        }
    }

    @Test func relativeAttitudeUndoesTheReferenceRotation() {
        let reference = Attitude(roll: 0, pitch: 0, yaw: 0.7)
        let turned = Attitude(roll: 0, pitch: 0, yaw: 1.0)
        #expect(abs(turned.relative(to: reference).yaw - 0.3) < 1e-12)
        #expect(abs(turned.angle(to: reference) - 0.3) < 1e-12)
    }

    @Test func totalAccelerationIsGravityPlusUserAcceleration() {
        let m = DeviceMotion(time: 0, attitude: .identity, rotationRate: .zero,
                             userAcceleration: Vector3(x: 0.1, y: 0, z: 0.2))
        #expect((m.totalAcceleration - Vector3(x: 0.1, y: 0, z: -0.8)).magnitude < 1e-12)
    }
}

@Suite struct RotationVectorTests {
    @Test func seriesAndTrigonometryAgreeWithAxisAngle() {
        for angle in [1e-9, 1e-4, 0.01, 0.0499, 0.0501, 0.1, 1, 3] {
            let axis = Vector3(x: 0.3, y: -0.5, z: 0.8).normalized
            let a = Quaternion(rotationVector: axis * angle), b = Quaternion(axis: axis, angle: angle)
            #expect(abs(a.w - b.w) < 1e-11 && abs(a.x - b.x) < 1e-11 && abs(a.y - b.y) < 1e-11 && abs(a.z - b.z) < 1e-11)
        }
    }
}
