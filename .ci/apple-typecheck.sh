#!/usr/bin/env bash
# Type-checks the Apple-only adapters (Sources/VitalsApple) on Linux against the stand-ins in
# .ci/apple-stubs (see its README): a throwaway package with the stubs as modules named AVFoundation,
# CoreMedia, CoreVideo, CoreMotion, HealthKit, ImageIO and Vision depends on this repository, so the
# adapters' `#if canImport` blocks compile. MotionWorkoutAdapter is watchOS-only: its guard also
# accepts VITALS_TYPECHECK_WATCHOS, which only this build defines (-Xswiftc reaches the dependency's
# targets too; unsafeFlags in the throwaway package would not). Check.swift names every adapter, so a
# file its guard left out fails here instead of passing unchecked. Usage: .ci/apple-typecheck.sh [REPO_ROOT]
set -euo pipefail
root=$(cd "${1:-$(dirname "$0")/..}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/Sources/AppleCheck" "$tmp/Sources/AppleSnippets"
cp "$root/.ci/apple-snippets/Snippets.swift" "$tmp/Sources/AppleSnippets/main.swift"
for m in AVFoundation CoreMedia CoreVideo CoreMotion HealthKit ImageIO Vision; do cp -r "$root/.ci/apple-stubs/$m" "$tmp/Sources/"; done
ln -s "$root" "$tmp/vitals"
cat > "$tmp/Sources/AppleCheck/Check.swift" <<'SWIFT'
import Vitals
// Every adapter the check covers: a missing one (its `#if` false) is an error.
let adapters: [Any.Type] = [
    CameraFrameSource.self, HeartbeatSeriesReader.self, MotionManagerAdapter.self, MotionWorkoutAdapter.self,
    SensorRecorderAdapter.self, SystemPedometer.self, VisionFaceDetector.self,
]
SWIFT
cat > "$tmp/Package.swift" <<'PKG'
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "AppleCheck",
    dependencies: [.package(path: "vitals")],
    targets: [
        .target(name: "CoreMedia"),
        .target(name: "CoreVideo", dependencies: ["CoreMedia"]),
        .target(name: "AVFoundation", dependencies: ["CoreMedia", "CoreVideo"]),
        .target(name: "CoreMotion"),
        .target(name: "HealthKit"),
        .target(name: "ImageIO"),
        .target(name: "Vision", dependencies: ["CoreVideo", "ImageIO"]),
        .target(name: "AppleCheck", dependencies: ["AVFoundation", "CoreMotion", "HealthKit", "Vision", .product(name: "Vitals", package: "vitals")]),
        // The documentation's Apple-only code (.ci/apple-snippets), as an app's main file, in Swift 5
        // mode as a new app project builds (its stand-ins for an app's views are not main-actor UI).
        .executableTarget(name: "AppleSnippets", dependencies: ["AVFoundation", "CoreMotion", "HealthKit", "Vision", .product(name: "Vitals", package: "vitals")],
                          swiftSettings: [.swiftLanguageMode(.v5)]),
    ]
)
PKG
cd "$tmp"
# The stand-ins first: the adapters' `#if canImport(AVFoundation)` is decided when VitalsApple
# compiles, and nothing orders that after the stand-in modules (VitalsApple cannot depend on this
# package's targets), so in one build it sometimes compiled before them and left the adapters out
# (a fresh-clone CI run failed so on 25 Nov 2026, once Check.swift named them; before, it passed
# without checking them).
for m in AVFoundation CoreMotion HealthKit Vision; do
  if ! swift build -Xswiftc -DVITALS_TYPECHECK_WATCHOS --target "$m" 2>"$tmp/err.txt" >"$tmp/out.txt"; then
    grep -E "error:" "$tmp/out.txt" "$tmp/err.txt" | sort -u | head -20
    echo "Apple adapters: the $m stand-in does not build"
    exit 1
  fi
done
if ! swift build -Xswiftc -DVITALS_TYPECHECK_WATCHOS 2>"$tmp/err.txt" >"$tmp/out.txt"; then
  grep -E "error:" "$tmp/out.txt" "$tmp/err.txt" | sort -u | head -20
  echo "Apple adapters: type check FAILED"
  exit 1
fi
echo "Apple adapters (CameraFrameSource, HeartbeatSeriesReader, MotionManagerAdapter, MotionWorkoutAdapter, SensorRecorderAdapter, SystemPedometer, VisionFaceDetector) and the documentation's Apple-only code (.ci/apple-snippets) type-check against the stubs"
