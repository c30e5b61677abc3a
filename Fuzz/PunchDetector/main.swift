// libFuzzer driver: built and run by tools/fuzz.sh PunchDetector; the work is in PunchKitFuzzEntryPoints.punchDetector.
/// libFuzzer's entry point: one input, through the same code the regression tests replay.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    PunchKitFuzzEntryPoints.punchDetector(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
