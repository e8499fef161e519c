/// Finds objects (faces, with a face cascade) in grayscale images with a ``CascadeClassifier``, as
/// OpenCV's `CascadeClassifier::detectMultiScale` does, with the same results on the same pixels.
///
/// For each scale s = 1, f, f^2, ... (f = ``Parameters/scaleFactor``) whose window, the cascade's
/// window times s, fits the image and the size bounds (see ``scales(width:height:)``), the image
/// is shrunk by s (bilinear, ``GrayImage/resized(width:height:)``), its integral images are computed, and the cascade runs on
/// every window position: a step of 2 pixels of the shrunk image while s < 2 and 1 pixel from 2 on
/// (so about 2s original pixels below s = 2, s from there), one step more after a window the first
/// stage rejects. Haar features are divided by the window's spread (the square root of
/// area x squared sum - sum^2, over the window less a 1-pixel border); a window whose standard
/// deviation is 10 grey levels or less is rejected outright, as in OpenCV. Accepted windows, scaled
/// back to the image, are merged by ``groupRectangles(_:minNeighbors:eps:)`` with eps 0.2.
///
/// A detector keeps its pyramid level and integral images between calls: detecting in frame after
/// frame of one size allocates only the result arrays.
public struct FaceDetector: Sendable {
    /// How to search.
    public struct Parameters: Sendable, Equatable {
        /// Ratio between successive scales (at least ``minimumScaleFactor``); smaller is slower and
        /// finds more sizes. OpenCV's default 1.1.
        public var scaleFactor: Double
        /// Raw detections a result must merge more than this many of (OpenCV's default 3); 0 returns
        /// every accepted window ungrouped.
        public var minNeighbors: Int
        /// Smallest window searched, pixels (``PixelSize/zero``: the cascade's own window).
        public var minSize: PixelSize
        /// Largest window searched, pixels (``PixelSize/zero``: the whole image).
        public var maxSize: PixelSize

        /// OpenCV's defaults unless given.
        public init(scaleFactor: Double = 1.1, minNeighbors: Int = 3, minSize: PixelSize = .zero, maxSize: PixelSize = .zero) {
            self.scaleFactor = scaleFactor
            self.minNeighbors = minNeighbors
            self.minSize = minSize
            self.maxSize = maxSize
        }
    }

    /// The smallest scale factor accepted: OpenCV takes any factor above 1, but one under 1.001
    /// means thousands of scales per image (nearly a million at 1.000001), which never ends in
    /// practice.
    public static let minimumScaleFactor = 1.001

    /// The classifier run on every window.
    public let cascade: CascadeClassifier
    /// The search parameters.
    public let parameters: Parameters

    // Scratch kept between calls.
    private var level = GrayImage()
    private var integral = IntegralImage()
    private var resizeBuffers = ResizeBuffers()
    /// Per feature, offsets of its corners in the integral image of the current level
    /// (Haar: 3 rectangles x 4 corners; LBP: the 4x4 grid), for rows `offsetStride` apart.
    private var offsets: [Int32] = []
    private var offsetStride = -1
    /// The scales of the last image size searched.
    private var scaleCache: (width: Int, height: Int, scales: [Float]) = (0, 0, [])
    /// Haar: 3 weights per feature (0 for a missing third rectangle).
    private let haarWeights: [Float]

    /// A detector running `cascade` with `parameters`.
    /// - Throws: ``FaceTrackingError`` `.badParameters` for a scale factor that is not a finite
    ///   number of at least ``minimumScaleFactor``, a negative `minNeighbors`, or a negative size.
    public init(cascade: CascadeClassifier, parameters: Parameters = Parameters()) throws(FaceTrackingError) {
        guard parameters.scaleFactor >= Self.minimumScaleFactor, parameters.scaleFactor.isFinite else {
            throw FaceTrackingError(
                .badParameters, "scale factor \(parameters.scaleFactor): must be a finite number of at least \(Self.minimumScaleFactor)")
        }
        guard parameters.minNeighbors >= 0 else {
            throw FaceTrackingError(.badParameters, "minNeighbors \(parameters.minNeighbors): must be 0 or more")
        }
        for s in [parameters.minSize, parameters.maxSize] where s.width < 0 || s.height < 0 {
            throw FaceTrackingError(.badParameters, "size \(s.width)x\(s.height): must not be negative")
        }
        self.cascade = cascade
        self.parameters = parameters
        haarWeights = cascade.haarFeatures.flatMap { f in (0..<3).map { $0 < f.rects.count ? f.rects[$0].weight : 0 } }
    }

    /// The scales searched in an image of `width` x `height` pixels, smallest first, as OpenCV 4
    /// chooses them (single precision, as it keeps them): every scale 1, f, f^2, ... whose window fits
    /// the image, less those whose window is under ``Parameters/minSize`` or over
    /// ``Parameters/maxSize``; when that leaves none (a `minSize` equal to `maxSize` between two
    /// scales' windows, say), the one scale whose window is nearest `minSize`.
    public func scales(width: Int, height: Int) -> [Float] {
        var all: [Float] = []
        var factor = 1.0
        while true {
            // Compared before conversion: a huge scale factor makes the window too large for an Int.
            let w = (Double(cascade.windowWidth) * factor).rounded(.toNearestOrEven)
            let h = (Double(cascade.windowHeight) * factor).rounded(.toNearestOrEven)
            if !(w <= Double(width) && h <= Double(height)) { break }
            all.append(Float(factor))
            factor *= parameters.scaleFactor
        }
        let maxSize = parameters.maxSize.width == 0 || parameters.maxSize.height == 0
            ? PixelSize(width: width, height: height) : parameters.maxSize
        let minSize = parameters.minSize
        func window(_ scale: Float) -> PixelSize {
            PixelSize(
                width: Int((Float(cascade.windowWidth) * scale).rounded(.toNearestOrEven)),
                height: Int((Float(cascade.windowHeight) * scale).rounded(.toNearestOrEven)))
        }
        var result: [Float] = []
        for scale in all {
            let w = window(scale)
            if w.width > maxSize.width || w.height > maxSize.height { break }
            if w.width < minSize.width || w.height < minSize.height { continue }
            result.append(scale)
        }
        if result.isEmpty, !all.isEmpty {
            func distance(_ scale: Float) -> Double {  // in Double: a huge minSize squared overflows an Int
                let w = window(scale)
                let dx = Double(minSize.width) - Double(w.width), dy = Double(minSize.height) - Double(w.height)
                return dx * dx + dy * dy
            }
            result = [all.min { distance($0) < distance($1) }!]
        }
        return result
    }

    /// The objects in `image`: accepted windows merged (see ``groupRectangles(_:minNeighbors:eps:)``),
    /// in the image's pixels.
    public mutating func detect(in image: GrayImage) -> [Detection] {
        groupRectangles(candidates(in: image), minNeighbors: parameters.minNeighbors, eps: 0.2)
    }

    /// Every window the cascade accepts in `image`, before merging, in the image's pixels; by scale,
    /// then row, then column.
    public mutating func candidates(in image: GrayImage) -> [PixelRect] {
        var found: [PixelRect] = []
        let haar = cascade.featureType == .haar
        if scaleCache.width != image.width || scaleCache.height != image.height {
            scaleCache = (image.width, image.height, scales(width: image.width, height: image.height))
        }
        for scale in scaleCache.scales {
            let w = Int((Float(image.width) / scale).rounded(.toNearestOrEven))
            let h = Int((Float(image.height) / scale).rounded(.toNearestOrEven))
            level.resize(from: image, width: w, height: h, buffers: &resizeBuffers)
            integral.compute(level, squares: haar)
            prepareOffsets(stride: w + 1)
            let window = PixelSize(
                width: Int((Float(cascade.windowWidth) * scale).rounded(.toNearestOrEven)),
                height: Int((Float(cascade.windowHeight) * scale).rounded(.toNearestOrEven)))
            scan(levelWidth: w, levelHeight: h, scale: scale, window: window, into: &found)
        }
        return found
    }

    /// Feature corner offsets for integral-image rows `stride` apart.
    private mutating func prepareOffsets(stride: Int) {
        guard stride != offsetStride else { return }
        offsetStride = stride
        offsets.removeAll(keepingCapacity: true)
        func at(_ x: Int, _ y: Int) -> Int32 { Int32(y * stride + x) }
        switch cascade.featureType {
        case .haar:
            for f in cascade.haarFeatures {
                for i in 0..<3 {
                    if i < f.rects.count {
                        let r = f.rects[i]
                        offsets += [at(r.x, r.y), at(r.x + r.width, r.y), at(r.x, r.y + r.height), at(r.x + r.width, r.y + r.height)]
                    } else {
                        offsets += [0, 0, 0, 0]
                    }
                }
            }
        case .lbp:
            for f in cascade.lbpFeatures {
                for i in 0..<4 {
                    for j in 0..<4 { offsets.append(at(f.x + j * f.blockWidth, f.y + i * f.blockHeight)) }
                }
            }
        }
    }

    /// Runs the cascade on every window position of the current level, appending accepted windows.
    private func scan(levelWidth: Int, levelHeight: Int, scale: Float, window: PixelSize, into found: inout [PixelRect]) {
        let stride = levelWidth + 1
        let winW = cascade.windowWidth, winH = cascade.windowHeight
        // Positions whose window lies inside the level.
        let columns = max(levelWidth + 1 - winW, 0), rows = max(levelHeight + 1 - winH, 0)
        let step = scale >= 2 ? 1 : 2
        let haar = cascade.featureType == .haar
        // Haar normalisation window: the window less a 1-pixel border.
        let normArea = Double((winW - 2) * (winH - 2))
        let n0 = stride + 1, n1 = stride + winW - 1, n2 = (winH - 1) * stride + 1, n3 = (winH - 1) * stride + winW - 1
        withModel { model in
        integral.sums.withUnsafeBufferPointer { sums in
            integral.squaredSums.withUnsafeBufferPointer { squares in
                offsets.withUnsafeBufferPointer { ofs in
                    haarWeights.withUnsafeBufferPointer { weights in
                        var y = 0
                        while y < rows {
                            var x = 0
                            while x < columns {
                                let origin = y * stride + x
                                var result: Int
                                if haar {
                                    let p = sums.baseAddress! + origin, q = squares.baseAddress! + origin
                                    let sum = Int32(bitPattern: p[n3] &- p[n2] &- p[n1] &+ p[n0])
                                    let squared = q[n3] &- q[n2] &- q[n1] &+ q[n0]
                                    let spread = normArea * Double(squared) - Double(sum) * Double(sum)
                                    if spread > 0 {
                                        let inverse = Float(1 / spread.squareRoot())
                                        // OpenCV rejects windows whose standard deviation is 10 or less.
                                        result = normArea * Double(inverse) < 0.1
                                            ? run(haarAt: p, inverse: inverse, ofs.baseAddress!, weights.baseAddress!, model) : -1
                                    } else {
                                        result = -1
                                    }
                                } else {
                                    result = run(lbpAt: sums.baseAddress! + origin, ofs.baseAddress!, model)
                                }
                                if result > 0 {
                                    found.append(PixelRect(
                                        x: Int((Float(x) * scale).rounded(.toNearestOrEven)),
                                        y: Int((Float(y) * scale).rounded(.toNearestOrEven)),
                                        width: window.width, height: window.height))
                                }
                                if result == 0 { x += step }
                                x += step
                            }
                            y += step
                        }
                    }
                }
            }
        }
        }
    }

    /// The cascade's arrays as pointers, valid inside `body`.
    private struct Model {
        var stages: UnsafeBufferPointer<CascadeClassifier.Stage>
        var stumps: UnsafeBufferPointer<CascadeClassifier.Stump>
        var hasStumps: Bool
        var nodes: UnsafeBufferPointer<CascadeClassifier.Node>
        var leaves: UnsafeBufferPointer<Float>
        var subsets: UnsafeBufferPointer<Int32>
        var treeNodeStart: UnsafeBufferPointer<Int>
        var treeLeafStart: UnsafeBufferPointer<Int>
    }

    private func withModel(_ body: (Model) -> Void) {
        cascade.stages.withUnsafeBufferPointer { stages in
            (cascade.stumps ?? []).withUnsafeBufferPointer { stumps in
                cascade.nodes.withUnsafeBufferPointer { nodes in
                    cascade.leaves.withUnsafeBufferPointer { leaves in
                        cascade.subsets.withUnsafeBufferPointer { subsets in
                            cascade.treeNodeStart.withUnsafeBufferPointer { nodeStart in
                                cascade.treeLeafStart.withUnsafeBufferPointer { leafStart in
                                    body(Model(
                                        stages: stages, stumps: stumps, hasStumps: cascade.stumps != nil, nodes: nodes,
                                        leaves: leaves, subsets: subsets, treeNodeStart: nodeStart, treeLeafStart: leafStart))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// A Haar feature's value at the window whose integral origin is `p`, normalised.
    @inline(__always)
    private func haarValue(_ feature: Int, _ p: UnsafePointer<UInt32>, _ inverse: Float, _ ofs: UnsafePointer<Int32>, _ weights: UnsafePointer<Float>) -> Float {
        let o = ofs + 12 * feature, w = weights + 3 * feature
        @inline(__always) func rect(_ k: Int) -> Float {
            Float(Int32(bitPattern: p[Int(o[4 * k + 3])] &- p[Int(o[4 * k + 2])] &- p[Int(o[4 * k + 1])] &+ p[Int(o[4 * k])]))
        }
        var value = w[0] * rect(0) + w[1] * rect(1)
        if w[2] != 0 { value += w[2] * rect(2) }
        return value * inverse
    }

    /// The LBP code of a feature at the window whose integral origin is `p`.
    @inline(__always)
    private func lbpValue(_ feature: Int, _ p: UnsafePointer<UInt32>, _ ofs: UnsafePointer<Int32>) -> Int {
        let o = ofs + 16 * feature
        return lbpCode { p[Int(o[$0])] }
    }

    /// The cascade on a Haar window: 1 when every stage passes, else minus the failing stage.
    @inline(__always)
    private func run(haarAt p: UnsafePointer<UInt32>, inverse: Float, _ ofs: UnsafePointer<Int32>, _ weights: UnsafePointer<Float>, _ model: Model) -> Int {
        evaluate(model) { feature, _, threshold in haarValue(feature, p, inverse, ofs, weights) < threshold }
    }

    /// The cascade on an LBP window: 1 when every stage passes, else minus the failing stage.
    @inline(__always)
    private func run(lbpAt p: UnsafePointer<UInt32>, _ ofs: UnsafePointer<Int32>, _ model: Model) -> Int {
        let subsets = model.subsets
        return evaluate(model) { feature, node, _ in
            let c = lbpValue(feature, p, ofs)
            return (subsets[8 * node + (c >> 5)] >> Int32(c & 31)) & 1 != 0
        }
    }

    /// The stages, with `goesLeft(feature, node index, threshold)` deciding each split.
    @inline(__always)
    private func evaluate(_ model: Model, _ goesLeft: (Int, Int, Float) -> Bool) -> Int {
        if model.hasStumps {
            for s in 0..<model.stages.count {
                let stage = model.stages[s]
                var sum = 0.0
                for t in stage.firstTree..<(stage.firstTree + stage.treeCount) {
                    let stump = model.stumps[t]
                    sum += Double(goesLeft(Int(stump.feature), t, stump.threshold) ? stump.left : stump.right)
                }
                if sum < Double(stage.threshold) { return -s }
            }
            return 1
        }
        for s in 0..<model.stages.count {
            let stage = model.stages[s]
            var sum = 0.0
            for t in stage.firstTree..<(stage.firstTree + stage.treeCount) {
                let root = model.treeNodeStart[t]
                var index = 0
                repeat {
                    let node = model.nodes[root + index]
                    index = Int(goesLeft(Int(node.feature), root + index, node.threshold) ? node.left : node.right)
                } while index > 0
                sum += Double(model.leaves[model.treeLeafStart[t] - index])
            }
            if sum < Double(stage.threshold) { return -s }
        }
        return 1
    }
}
