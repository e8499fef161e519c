/// A boosted cascade of weak classifiers over Haar or LBP features, as OpenCV trains them
/// (`opencv_traincascade`) and stores them in its XML format: the model a ``FaceDetector`` runs on
/// every window.
///
/// A window of ``windowWidth`` x ``windowHeight`` pixels passes when, in every stage, the sum of its
/// trees' leaf values reaches the stage threshold. Load one with ``init(xml:)``.
public struct CascadeClassifier: Sendable {
    /// The features the weak classifiers test.
    public enum FeatureType: String, Sendable {
        /// Haar-like features: weighted sums of 2-3 rectangles, divided by the window's
        /// brightness spread (standard deviation times area); compared with a threshold.
        case haar = "HAAR"
        /// Local binary patterns of 3x3 blocks: an 8-bit code, looked up in a 256-bit set.
        case lbp = "LBP"
    }

    /// One rectangle of a Haar feature, in window pixels, and its weight.
    public struct WeightedRect: Sendable, Equatable {
        /// Left edge and top edge in the window, and size, pixels.
        public var x: Int, y: Int, width: Int, height: Int
        /// The weight of the rectangle's pixel sum in the feature.
        public var weight: Float
        /// A rectangle at (`x`, `y`) in the window, `width` x `height` pixels, weighted `weight`.
        public init(x: Int, y: Int, width: Int, height: Int, weight: Float) {
            (self.x, self.y, self.width, self.height, self.weight) = (x, y, width, height, weight)
        }
    }

    /// A Haar feature: the weighted sum of its rectangles' pixel sums (2 or 3 rectangles).
    public struct HaarFeature: Sendable, Equatable {
        /// The rectangles, in the file's order.
        public var rects: [WeightedRect]
        /// A feature of `rects`.
        public init(rects: [WeightedRect]) { self.rects = rects }
    }

    /// An LBP feature: a 3x3 grid of `blockWidth` x `blockHeight` blocks whose top-left corner is at
    /// (`x`, `y`) in the window. Its value is ``lbpCode(sums:stride:x:y:blockWidth:blockHeight:)``.
    public struct LBPFeature: Sendable, Equatable {
        /// The grid's top-left corner in the window, and one block's size, pixels.
        public var x: Int, y: Int, blockWidth: Int, blockHeight: Int
        /// A grid of `blockWidth` x `blockHeight` blocks whose top-left corner is (`x`, `y`).
        public init(x: Int, y: Int, blockWidth: Int, blockHeight: Int) {
            (self.x, self.y, self.blockWidth, self.blockHeight) = (x, y, blockWidth, blockHeight)
        }
    }

    /// A split of a weak classifier's tree. `left` and `right` are the next node's index within the
    /// tree when positive, else minus the index of a leaf of the tree.
    struct Node: Sendable {
        var left: Int32
        var right: Int32
        var feature: Int32
        /// Haar: the feature value below which the tree goes left (LBP: unused, 0).
        var threshold: Float
    }

    /// A weak classifier of depth one (every tree of most cascades): both leaves inline.
    struct Stump: Sendable {
        var feature: Int32
        var threshold: Float
        var left: Float
        var right: Float
    }

    struct Stage: Sendable {
        /// The stage threshold less 1e-5, as OpenCV keeps it (`THRESHOLD_EPS`).
        var threshold: Float
        var firstTree: Int
        var treeCount: Int
    }

    /// Which feature the weak classifiers test.
    public let featureType: FeatureType
    /// The training window's width, pixels: the smallest object the cascade finds.
    public let windowWidth: Int
    /// The training window's height, pixels.
    public let windowHeight: Int
    /// The Haar features (empty for an LBP cascade), indexed by the trees' nodes.
    public let haarFeatures: [HaarFeature]
    /// The LBP features (empty for a Haar cascade), indexed by the trees' nodes.
    public let lbpFeatures: [LBPFeature]

    let stages: [Stage]
    /// Per tree: the index of its first node in `nodes`, and of its first leaf in `leaves`.
    let treeNodeStart: [Int]
    let treeLeafStart: [Int]
    let nodes: [Node]
    let leaves: [Float]
    /// LBP: 8 words (256 bits) per node, in node order: bit `c` set sends code `c` left.
    let subsets: [Int32]
    /// Every tree as a stump, when every tree has one node (nil otherwise).
    let stumps: [Stump]?

    /// Number of stages.
    public var stageCount: Int { stages.count }
    /// Number of weak classifiers over all stages.
    public var treeCount: Int { treeNodeStart.count }

    init(
        featureType: FeatureType, windowWidth: Int, windowHeight: Int, haarFeatures: [HaarFeature],
        lbpFeatures: [LBPFeature], stages: [Stage], treeNodeStart: [Int], treeLeafStart: [Int],
        nodes: [Node], leaves: [Float], subsets: [Int32]
    ) {
        self.featureType = featureType
        self.windowWidth = windowWidth
        self.windowHeight = windowHeight
        self.haarFeatures = haarFeatures
        self.lbpFeatures = lbpFeatures
        self.stages = stages
        self.treeNodeStart = treeNodeStart
        self.treeLeafStart = treeLeafStart
        self.nodes = nodes
        self.leaves = leaves
        self.subsets = subsets
        let nodeCounts = zip(treeNodeStart, treeNodeStart.dropFirst() + [nodes.count]).map { $1 - $0 }
        if nodeCounts.allSatisfy({ $0 == 1 }) {
            stumps = treeNodeStart.indices.map { t in
                let node = nodes[treeNodeStart[t]], leaf = treeLeafStart[t]
                return Stump(
                    feature: node.feature, threshold: node.threshold,
                    left: leaves[leaf - Int(node.left)], right: leaves[leaf - Int(node.right)])
            }
        } else {
            stumps = nil
        }
    }
}

/// The local binary pattern OpenCV's LBP cascades test: the 3x3 grid of `blockWidth` x
/// `blockHeight` blocks whose top-left corner is pixel (`x`, `y`); each of the eight outer blocks
/// whose pixel sum is at least the centre block's sets one bit, clockwise from the top-left block
/// (bit 7) to the middle-left block (bit 0).
///
/// `sums` is a summed-area table (``IntegralImage/sums``) with rows `stride` entries apart.
/// - Returns: the code, 0...255.
@inlinable
public func lbpCode(sums: UnsafePointer<UInt32>, stride: Int, x: Int, y: Int, blockWidth: Int, blockHeight: Int) -> Int {
    lbpCode { k in sums[(y + (k >> 2) * blockHeight) * stride + x + (k & 3) * blockWidth] }
}

/// The LBP code of a 3x3 block grid given `corner(k)`, the summed-area table at corner `k` of the
/// grid's 4x4 corners (row-major: `k = 4 * row + column`).
@inlinable @inline(__always)
func lbpCode(corner: (Int) -> UInt32) -> Int {
    @inline(__always) func block(_ i: Int, _ j: Int) -> Int32 {
        let a = 4 * i + j
        return Int32(bitPattern: corner(a + 5) &- corner(a + 4) &- corner(a + 1) &+ corner(a))
    }
    let centre = block(1, 1)
    var code = 0
    if block(0, 0) >= centre { code |= 128 }
    if block(0, 1) >= centre { code |= 64 }
    if block(0, 2) >= centre { code |= 32 }
    if block(1, 2) >= centre { code |= 16 }
    if block(2, 2) >= centre { code |= 8 }
    if block(2, 1) >= centre { code |= 4 }
    if block(2, 0) >= centre { code |= 2 }
    if block(1, 0) >= centre { code |= 1 }
    return code
}
