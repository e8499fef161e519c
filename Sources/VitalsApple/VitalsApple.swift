// Thin adapters over Apple's capture and sensor frameworks live in this module, each file wrapped
// whole in `#if canImport(...)`. On other platforms the module is empty; all logic is in the
// portable modules it adapts to.
