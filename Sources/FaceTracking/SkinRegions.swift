/// Regions of bare skin within a face box, where a remote pulse signal is read: the forehead and
/// the two cheeks, avoiding the eyes, brows, nostrils, mouth, beard line and hair line.
///
/// Each region is given as a fraction of the face box (x and width of its width, y and height of
/// its height, from its top-left), so it follows the box's size. The defaults assume an upright,
/// frontal face in a detector's box spanning about brow-top to chin and cheek to cheek (Vision's
/// and a frontal Haar cascade's boxes): the eyes lie near 35-45 % of the height, the nose within
/// the middle third of the width. They come from those proportions, not from a fit to data.
/// Roll is not applied: for a tilted face, rotate the box first or accept regions that drift
/// toward the edges.
public struct SkinRegions: Sendable, Equatable {
    /// Where each region sits in the face box, as fractions of the box.
    public struct Layout: Sendable, Equatable {
        /// Default: the middle 50 % of the width, from 4 % to 20 % of the height (above the brows).
        public var forehead = NormalizedRect(x: 0.25, y: 0.04, width: 0.5, height: 0.16)
        /// The cheek on the image's left (the person's right cheek unless the image is mirrored).
        /// Default: 12-34 % of the width, 50-72 % of the height (below the eye, beside the nose).
        public var leftCheek = NormalizedRect(x: 0.12, y: 0.5, width: 0.22, height: 0.22)
        /// The cheek on the image's right; the default mirrors ``leftCheek``: 66-88 % of the width.
        public var rightCheek = NormalizedRect(x: 0.66, y: 0.5, width: 0.22, height: 0.22)
        public init() {}
    }

    /// Normalised image coordinates, like the face box.
    public var forehead: NormalizedRect
    public var leftCheek: NormalizedRect
    public var rightCheek: NormalizedRect

    /// The regions of the face box `face` (normalised image coordinates) laid out by `layout`.
    public init(face: NormalizedRect, layout: Layout = Layout()) {
        func place(_ f: NormalizedRect) -> NormalizedRect {
            NormalizedRect(x: face.x + f.x * face.width, y: face.y + f.y * face.height,
                           width: f.width * face.width, height: f.height * face.height)
        }
        forehead = place(layout.forehead)
        leftCheek = place(layout.leftCheek)
        rightCheek = place(layout.rightCheek)
    }
}
