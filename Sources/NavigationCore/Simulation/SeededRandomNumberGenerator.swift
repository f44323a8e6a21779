import FoundationEssentials
import Glibc

/// A deterministic random number generator (SplitMix64): the same seed always gives the same sequence, so
/// simulations are reproducible. The core never uses the system's random source.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in the open interval (0, 1).
    public mutating func nextUniform() -> Double { (Double(next() >> 11) + 0.5) / 9_007_199_254_740_992 }

    /// Normally distributed with mean 0 and standard deviation `sigma` (Box–Muller).
    public mutating func nextGaussian(sigma: Double) -> Double {
        guard sigma > 0 else { return 0 }
        let u1 = nextUniform(), u2 = nextUniform()
        return sigma * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
