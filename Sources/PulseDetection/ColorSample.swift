/// The mean colour of one camera frame: red, green and blue on a 0...255 scale, with a timestamp.
public struct ColorSample: Sendable, Equatable {
    /// Seconds, from any fixed origin (the frame's presentation time).
    public var time: Double
    public var red: Double
    public var green: Double
    public var blue: Double

    public init(time: Double, red: Double, green: Double, blue: Double) {
        self.time = time
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Hue in degrees, 0..<360 (red is 0), from the HSV model; 0 for grey.
    public var hue: Double {
        let maxC = max(red, green, blue), minC = min(red, green, blue)
        let delta = maxC - minC
        guard delta > 0 else { return 0 }
        var h: Double
        if maxC == red {
            h = (green - blue) / delta
        } else if maxC == green {
            h = 2 + (blue - red) / delta
        } else {
            h = 4 + (red - green) / delta
        }
        h *= 60
        if h < 0 { h += 360 }
        return h
    }

    /// Hue in degrees centred on red, -180..<180 (``hue`` with the angles from 180 up taken
    /// negative). A fingertip's colour sits near red, where ``hue`` wraps between 359 and 0 whenever
    /// green and blue cross; this one moves smoothly there.
    public var signedHue: Double {
        let h = hue
        return h >= 180 ? h - 360 : h
    }

    /// Saturation, 0...1, from the HSV model; 0 for black.
    public var saturation: Double {
        let maxC = max(red, green, blue)
        guard maxC > 0 else { return 0 }
        return (maxC - min(red, green, blue)) / maxC
    }

    /// Value (brightness), 0...1: the largest channel over 255.
    public var value: Double { max(red, green, blue) / 255 }
}
