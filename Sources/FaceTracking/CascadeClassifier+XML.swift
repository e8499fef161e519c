extension CascadeClassifier {
    /// Reads a cascade in OpenCV's XML format (the one `opencv_traincascade` writes and OpenCV 3/4
    /// ship: `<opencv_storage><cascade>` with `stageType` BOOST, `featureType` HAAR or LBP,
    /// `width`/`height`, `stages` of `weakClassifiers` with `internalNodes`/`leafValues`, and
    /// `features` with `rects` (Haar) or `rect` (LBP)). Values are kept as OpenCV keeps them
    /// (single precision, stage thresholds less 1e-5), so decisions match it.
    ///
    /// - Parameter xml: the file's bytes.
    /// - Throws: ``FaceTrackingError``: `.malformedXML` (not XML), `.oldFormatCascade` (an OpenCV 1.x
    ///   `opencv-haar-classifier`), `.unsupportedCascade` (HOG features, a stage type other than
    ///   BOOST, tilted Haar features), `.invalidCascade` (a missing element, a bad number, an index
    ///   or rectangle out of range), each naming the line.
    /// - Complexity: O(file size).
    public init(xml: [UInt8]) throws(FaceTrackingError) {
        let cascade = try Self.cascadeElement(xml)
        let reader = Reader()
        let stageType = try reader.word(cascade, "stageType")
        guard stageType == "BOOST" else {
            throw FaceTrackingError(.unsupportedCascade, "stageType \(stageType) (line \(cascade.line)): only BOOST cascades are supported")
        }
        let featureName = try reader.word(cascade, "featureType")
        guard let featureType = FeatureType(rawValue: featureName) else {
            let code: FaceTrackingError.Code = featureName == "HOG" ? .unsupportedCascade : .invalidCascade
            throw FaceTrackingError(code, "featureType \(featureName) (line \(cascade.line)): only HAAR and LBP are supported")
        }
        let width = try reader.integer(cascade, "width"), height = try reader.integer(cascade, "height")
        guard width > 0, height > 0, width <= 1000, height <= 1000 else {
            throw FaceTrackingError(.invalidCascade, "window \(width)x\(height) (line \(cascade.line)): sides must be 1...1000")
        }
        let featureParams = try reader.element(cascade, "featureParams")
        var categories = 0
        if featureParams.child("maxCatCount") != nil { categories = try reader.integer(featureParams, "maxCatCount") }
        let expectedCategories = featureType == .lbp ? 256 : 0
        guard categories == expectedCategories else {
            throw FaceTrackingError(
                .invalidCascade,
                "maxCatCount \(categories) (line \(featureParams.line)): a \(featureType.rawValue) cascade has \(expectedCategories)")
        }

        var tables = Tables(categories: categories)
        let stageList = try reader.element(cascade, "stages")
        guard !stageList.children.isEmpty else {
            throw FaceTrackingError(.invalidCascade, "<stages> (line \(stageList.line)) holds no stage")
        }
        for stageNode in stageList.children { try tables.readStage(stageNode, reader) }

        let featureList = try reader.element(cascade, "features")
        var haar: [HaarFeature] = [], lbp: [LBPFeature] = []
        for feature in featureList.children {
            switch featureType {
            case .haar: haar.append(try Self.haarFeature(feature, reader, width: width, height: height))
            case .lbp: lbp.append(try Self.lbpFeature(feature, reader, width: width, height: height))
            }
        }
        let featureCount = featureType == .haar ? haar.count : lbp.count
        if let bad = tables.nodes.first(where: { $0.feature < 0 || Int($0.feature) >= featureCount }) {
            throw FaceTrackingError(
                .invalidCascade, "a tree tests feature \(bad.feature), but <features> (line \(featureList.line)) holds \(featureCount)")
        }
        self.init(
            featureType: featureType, windowWidth: width, windowHeight: height, haarFeatures: haar, lbpFeatures: lbp,
            stages: tables.stages, treeNodeStart: tables.treeNodeStart, treeLeafStart: tables.treeLeafStart,
            nodes: tables.nodes, leaves: tables.leaves, subsets: tables.subsets)
    }

    /// The `<cascade>` element of an OpenCV 3/4 cascade file, after the document's checks.
    private static func cascadeElement(_ xml: [UInt8]) throws(FaceTrackingError) -> XMLTree {
        let root = try XMLTree.parse(xml)
        guard root.name == "opencv_storage" else {
            throw FaceTrackingError(
                .invalidCascade, "not an OpenCV cascade: the document element is <\(root.name)>, not <opencv_storage>")
        }
        guard let cascade = root.children.first else {
            throw FaceTrackingError(.invalidCascade, "not an OpenCV cascade: <opencv_storage> is empty")
        }
        if cascade.attributes["type_id"] == "opencv-haar-classifier"
            || (cascade.child("stageType") == nil && cascade.child("size") != nil) {
            throw FaceTrackingError(
                .oldFormatCascade,
                "<\(cascade.name)> (line \(cascade.line)) is an OpenCV 1.x cascade (opencv-haar-classifier); only the <cascade> format of OpenCV 3/4 is read (convert it with OpenCV's CascadeClassifier.convert)")
        }
        return cascade
    }

    /// The stages' flat tables as they are read: each stage's trees, each tree's nodes and leaves,
    /// and (LBP) each node's category subset.
    private struct Tables {
        /// Categories of a feature's value (256 for LBP, 0 for Haar's thresholded value).
        let categories: Int
        /// 32-bit words of a node's category subset, and numbers per node in `<internalNodes>`.
        let subsetWords: Int
        let nodeStep: Int
        var stages: [Stage] = []
        var treeNodeStart: [Int] = [], treeLeafStart: [Int] = []
        var nodes: [Node] = [], leaves: [Float] = [], subsets: [Int32] = []

        init(categories: Int) {
            self.categories = categories
            subsetWords = (categories + 31) / 32
            nodeStep = 3 + (categories > 0 ? subsetWords : 1)
        }

        mutating func readStage(_ stageNode: XMLTree, _ reader: Reader) throws(FaceTrackingError) {
            let threshold = try reader.float(stageNode, "stageThreshold")
            let weak = try reader.element(stageNode, "weakClassifiers")
            guard !weak.children.isEmpty else {
                throw FaceTrackingError(.invalidCascade, "<weakClassifiers> (line \(weak.line)) holds no classifier")
            }
            stages.append(Stage(threshold: threshold - Float(1e-5), firstTree: treeNodeStart.count, treeCount: weak.children.count))
            for tree in weak.children { try readTree(tree, reader) }
        }

        mutating func readTree(_ tree: XMLTree, _ reader: Reader) throws(FaceTrackingError) {
            let internalWords = try reader.element(tree, "internalNodes").words
            let leafWords = try reader.element(tree, "leafValues").words
            guard !internalWords.isEmpty, internalWords.count % nodeStep == 0 else {
                throw FaceTrackingError(
                    .invalidCascade,
                    "<internalNodes> (line \(tree.line)) has \(internalWords.count) numbers, not a multiple of \(nodeStep)")
            }
            let nodeCount = internalWords.count / nodeStep
            guard leafWords.count == nodeCount + 1 else {
                throw FaceTrackingError(
                    .invalidCascade,
                    "<leafValues> (line \(tree.line)) has \(leafWords.count) values for \(nodeCount) nodes (needs \(nodeCount + 1))")
            }
            treeNodeStart.append(nodes.count)
            treeLeafStart.append(leaves.count)
            for n in 0..<nodeCount {
                try readNode(internalWords[(n * nodeStep)...], index: n, of: nodeCount, tree, reader)
            }
            for word in leafWords { leaves.append(try reader.float(word, at: tree)) }
        }

        /// Node `n` of a `nodeCount`-node tree, from its numbers `w` (left, right, feature, then the
        /// threshold or the category subset).
        private mutating func readNode(_ w: ArraySlice<Substring>, index n: Int, of nodeCount: Int, _ tree: XMLTree,
                                       _ reader: Reader) throws(FaceTrackingError) {
            let numbers = try (0..<3).map { (i: Int) throws(FaceTrackingError) -> Int in
                try reader.integer(w[w.startIndex + i], at: tree)
            }
            // A split leads to a later node (so every walk ends) or to one of the tree's leaves.
            // (`link < -nodeCount`, not `-link > nodeCount`: negating Int.min traps.)
            for link in numbers[0...1] where (link > 0 && (link <= n || link >= nodeCount)) || link < -nodeCount {
                throw FaceTrackingError(
                    .invalidCascade, "tree node link \(link) (line \(tree.line)) is not a later node or a leaf of its \(nodeCount)-node tree")
            }
            var threshold: Float = 0
            if categories > 0 {
                for i in 0..<subsetWords {
                    let word = try reader.integer(w[w.startIndex + 3 + i], at: tree)
                    guard let bits = Int32(exactly: word) ?? UInt32(exactly: word).map({ Int32(bitPattern: $0) }) else {
                        throw FaceTrackingError(.invalidCascade, "subset word \(word) (line \(tree.line)) is not 32-bit")
                    }
                    subsets.append(bits)
                }
            } else {
                threshold = try reader.float(w[w.startIndex + 3], at: tree)
            }
            // Checked against <features> once they are read; beyond Int32 it is no index at all
            // (Int32(_:) traps there).
            guard let feature = Int32(exactly: numbers[2]) else {
                throw FaceTrackingError(
                    .invalidCascade, "a tree tests feature \(numbers[2]) (line \(tree.line)), which is no feature index")
            }
            nodes.append(Node(left: Int32(numbers[0]), right: Int32(numbers[1]), feature: feature, threshold: threshold))
        }
    }

    /// A Haar feature's two or three weighted rectangles, each inside the `width` x `height` window.
    private static func haarFeature(_ feature: XMLTree, _ reader: Reader, width: Int, height: Int) throws(FaceTrackingError) -> HaarFeature {
        if let tilted = feature.child("tilted"), try reader.integer(tilted.words.first ?? "", at: tilted) != 0 {
            throw FaceTrackingError(
                .unsupportedCascade, "feature at line \(feature.line) is a tilted (45-degree) Haar feature, which is not supported")
        }
        let rectList = try reader.element(feature, "rects")
        guard (2...3).contains(rectList.children.count) else {
            throw FaceTrackingError(
                .invalidCascade, "Haar feature at line \(feature.line) has \(rectList.children.count) rectangles (2 or 3 expected)")
        }
        var rects: [WeightedRect] = []
        for r in rectList.children {
            let v = r.words
            guard v.count == 5 else {
                throw FaceTrackingError(.invalidCascade, "Haar rectangle at line \(r.line) has \(v.count) numbers (x y width height weight expected)")
            }
            let rect = WeightedRect(
                x: try reader.integer(v[0], at: r), y: try reader.integer(v[1], at: r),
                width: try reader.integer(v[2], at: r), height: try reader.integer(v[3], at: r),
                weight: try reader.float(v[4], at: r))
            // Compared without adding: x + width overflows (a trap) for sizes near Int.max.
            guard rect.x >= 0, rect.y >= 0, rect.width >= 0, rect.height >= 0,
                rect.width <= width - rect.x, rect.height <= height - rect.y
            else {
                throw FaceTrackingError(.invalidCascade, "Haar rectangle at line \(r.line) lies outside the \(width)x\(height) window")
            }
            rects.append(rect)
        }
        return HaarFeature(rects: rects)
    }

    /// An LBP feature's rectangle, whose 3 x 3 blocks lie inside the `width` x `height` window.
    private static func lbpFeature(_ feature: XMLTree, _ reader: Reader, width: Int, height: Int) throws(FaceTrackingError) -> LBPFeature {
        let r = try reader.element(feature, "rect")
        let v = r.words
        guard v.count == 4 else {
            throw FaceTrackingError(.invalidCascade, "LBP rect at line \(r.line) has \(v.count) numbers (x y width height expected)")
        }
        let f = LBPFeature(
            x: try reader.integer(v[0], at: r), y: try reader.integer(v[1], at: r),
            blockWidth: try reader.integer(v[2], at: r), blockHeight: try reader.integer(v[3], at: r))
        // Compared without multiplying: 3 * a block side near Int.max overflows (a trap).
        guard f.x >= 0, f.y >= 0, f.blockWidth > 0, f.blockHeight > 0,
            f.blockWidth <= (width - f.x) / 3, f.blockHeight <= (height - f.y) / 3
        else {
            throw FaceTrackingError(.invalidCascade, "LBP rect at line \(r.line): its 3x3 blocks lie outside the \(width)x\(height) window")
        }
        return f
    }

    /// Reads typed values out of elements, with errors naming the element and line.
    private struct Reader {
        func element(_ parent: XMLTree, _ name: String) throws(FaceTrackingError) -> XMLTree {
            guard let e = parent.child(name) else {
                throw FaceTrackingError(.invalidCascade, "<\(parent.name)> (line \(parent.line)) has no <\(name)>")
            }
            return e
        }

        func word(_ parent: XMLTree, _ name: String) throws(FaceTrackingError) -> String {
            let e = try element(parent, name)
            guard let w = e.words.first else {
                throw FaceTrackingError(.invalidCascade, "<\(name)> (line \(e.line)) is empty")
            }
            return String(w)
        }

        func integer(_ parent: XMLTree, _ name: String) throws(FaceTrackingError) -> Int {
            let e = try element(parent, name)
            return try integer(e.words.first ?? "", at: e)
        }

        func float(_ parent: XMLTree, _ name: String) throws(FaceTrackingError) -> Float {
            let e = try element(parent, name)
            return try float(e.words.first ?? "", at: e)
        }

        func integer(_ word: Substring, at e: XMLTree) throws(FaceTrackingError) -> Int {
            guard let v = Int(word) else {
                throw FaceTrackingError(.invalidCascade, "<\(e.name)> (line \(e.line)): '\(word)' is not an integer")
            }
            return v
        }

        /// As OpenCV reads it: the decimal as a double, then rounded to single precision. A value
        /// beyond single precision's range (3.4e38) is refused like a non-finite one: rounded, it
        /// was infinity (a stage no window passes, or a sum of inf - inf).
        func float(_ word: Substring, at e: XMLTree) throws(FaceTrackingError) -> Float {
            guard let v = Double(word), v.isFinite, Float(v).isFinite else {
                throw FaceTrackingError(.invalidCascade, "<\(e.name)> (line \(e.line)): '\(word)' is not a finite number (in single precision)")
            }
            return Float(v)
        }
    }
}
