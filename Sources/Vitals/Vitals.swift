// `import Vitals` brings the whole portable toolkit (and the Apple adapters where they exist).
@_exported import SignalProcessing
@_exported import PulseDetection
@_exported import MotionAnalysis
@_exported import FaceTracking
@_exported import VitalsStore
@_exported import VitalsApple
