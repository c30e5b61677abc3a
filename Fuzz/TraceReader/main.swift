// libFuzzer driver: built and run by tools/fuzz.sh TraceReader; the work is in PunchKitFuzzEntryPoints.traceReader.
/// libFuzzer's entry point: one input, through the same code the regression tests replay.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    PunchKitFuzzEntryPoints.traceReader(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
