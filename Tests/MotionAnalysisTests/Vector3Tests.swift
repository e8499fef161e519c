import Testing
@testable import MotionAnalysis

@Suite struct Vector3Tests {
    @Test func crossProductFollowsTheRightHandRule() {
        let x = Vector3(x: 1, y: 0, z: 0), y = Vector3(x: 0, y: 1, z: 0)
        #expect(x.cross(y) == Vector3(x: 0, y: 0, z: 1))
        #expect(x.dot(y) == 0)
        #expect(Vector3(x: 3, y: 4, z: 0).magnitude == 5)
    }
}
