/// A sample rate measured from timestamps (1 / the median interval), read as `limit` when it lies
/// above it by no more than the rounding of the times' last digits: samples 1e-4 s apart read
/// 10000.000001 Hz, which is 10 kHz, the most the readers take.
func measuredRate(_ rate: Double, atMost limit: Double) -> Double {
    rate > limit && rate <= limit * (1 + 1e-9) ? limit : rate
}
